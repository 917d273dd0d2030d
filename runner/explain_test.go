package runner

import (
	"errors"
	"strings"
	"testing"

	"modbay/modproto"
)

// TestExplainDecode: each first mistake gets its own message; anything
// else keeps the decoder's detail.
func TestExplainDecode(t *testing.T) {
	cases := []struct {
		name, stdout, stderr string
		exit                 int
		want                 []string
	}{
		{"noise", "Loading \x1b[31mmodel\x1b[0m…\n{\"ok\":true}", "", 0,
			[]string{`stdout starts with "Loading \x1b[31mmodel`, "print logs and progress to stderr", "the first '{' is at byte 26"}},
		{"crash, nothing", "", "Traceback\n  File x\nValueError: bad\n", 3,
			[]string{"exited with status 3 before writing an envelope; stderr ends: Traceback | File x | ValueError: bad"}},
		{"crash, half an envelope", `{"protocol":`, "", 1,
			[]string{"exited with status 1 before finishing its envelope", "stderr is empty"}},
		{"wrong type", `{"ok":false,"error":"cannot open db"}`, "", 0,
			[]string{`envelope field error: must be an object, got a string "cannot open db"`}},
		{"trailing garbage", "{\"ok\":true}\n done \x1b[2J\n", "", 0, []string{`9 bytes after the envelope, starting "done \x1b[2J"`, "print logs and progress to stderr"}},
	}
	for _, c := range cases {
		_, err := modproto.DecodeEnvelope([]byte(c.stdout))
		var de *modproto.DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := explainDecode(de, []byte(c.stdout), c.stderr, c.exit)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
		if strings.ContainsRune(got, '\x1b') || strings.ContainsRune(got, '\n') {
			t.Errorf("%s: raw control characters in %q", c.name, got)
		}
	}
}
