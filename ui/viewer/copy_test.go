package viewer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSaveName(t *testing.T) {
	cases := []struct{ path, id, want string }{
		{"reports/q3.md", "a1", "q3.md"},
		{"a\nb.txt", "a1", "a b.txt"},
		{"x\x1b[2J\x07.md", "a1", "x␛[2J␇.md"},
		{"invoice\u202efdp.exe", "a1", "invoice\ufffdfdp.exe"},
		{"bad\u009b31m", "a1", "bad␛[31m"},
		{"..", "a1", "a1"},
		{"", "a1", "a1"},
		{"/", "", "artifact"},
		{"..", "..", "artifact"},
		{"ok", "../x", "ok"},
		{"", "id/../with/slash", "id_.._with_slash"},
	}
	for _, c := range cases {
		if got := saveName(c.path, c.id); got != c.want {
			t.Errorf("saveName(%q, %q) = %q, want %q", c.path, c.id, got, c.want)
		}
	}
}

// TestSavedNameAndCopiedPathAreSanitized: an artifact whose reported path
// carries a newline, an OSC 52 write and a bidi override is saved under a
// name with visible stand-ins, and y copies that path with none of them
// raw.
func TestSavedNameAndCopiedPathAreSanitized(t *testing.T) {
	f := open(t, "plain.md", []byte("# x\n"), "text/markdown", "", 80, 12, false)
	a := f.m.Artifact()
	a.Path = "out/rep\x1b]52;c;Zm9v\x07ort\u202e\n.md"
	f.m = New(f.m.com, DefaultKeyMap(), Env{}, "req-1", a, nil, t.TempDir())
	f.run(f.m.Load())
	dir := t.TempDir()
	f.run(f.m.Save(dir))
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("saved %v %v", entries, err)
	}
	name := entries[0].Name()
	if name != "rep␛]52;c;Zm9v␇ort\ufffd .md" {
		t.Fatalf("saved as %q", name)
	}
	f.key("y")
	if len(f.clip) != 1 || f.clip[0] != filepath.Join(dir, name) {
		t.Fatalf("copied %q", f.clip)
	}
	if strings.ContainsAny(f.clip[0], "\x1b\x07\n\u202e") {
		t.Fatalf("a control reached the clipboard: %q", f.clip[0])
	}
	inert(t, f.frame())
}
