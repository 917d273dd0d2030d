package modproto

import (
	"strings"
	"testing"
)

// TestUnicodeProblem: an invalid UTF-8 byte and a lone surrogate escape
// are named with their offset; a pair, an escaped backslash before "u"
// and plain text are fine.
func TestUnicodeProblem(t *testing.T) {
	for in, want := range map[string]string{
		"{\"k\":\"p\xe4ss\"}":     "byte 7 (0xe4) is not UTF-8",
		`{"k":"Sur\ud800rogate"}`: "lone high surrogate (U+D800)",
		`{"k":"x\udc00"}`:         "lone low surrogate (U+DC00)",
		`{"k":"\ud83d\ude00 ok"}`: "",
		`{"k":"\\ud800 is text"}`: "",
		`{"k":"päss","n":1}`:      "",
		`{"\ud800":1}`:            "lone high surrogate",
		`{"k":"\ud83d\u0041"}`:    "lone high surrogate",
	} {
		if got := UnicodeProblem([]byte(in)); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("UnicodeProblem(%q) = %q, want %q", in, got, want)
		}
	}
}
