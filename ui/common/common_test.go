package common

import (
	"strings"
	"testing"
)

// TestNote: a note wraps to the width in up to MaxNoteLines lines, none
// wider; a longer one is cut and says where it is whole.
func TestNote(t *testing.T) {
	short := "Copied to the tmux buffer: /home/u/.local/share/modbay/artifacts/sha256/ab/abcdef/report.md"
	got := Note(short, 40)
	if Lines(got) != 3 || strings.Contains(got, "…") || strings.Join(strings.Fields(got), "") != strings.ReplaceAll(short, " ", "") {
		t.Fatalf("note wrapped as\n%s", got)
	}
	long := strings.Repeat("word ", 60)
	got = Note(long, 40)
	if Lines(got) != MaxNoteLines || !strings.HasSuffix(got, "… (? shows it whole)") {
		t.Fatalf("long note:\n%s", got)
	}
	for _, l := range strings.Split(got, "\n") {
		if Width(l) > 40 {
			t.Fatalf("line %q is wider than 40", l)
		}
	}
}

// TestWrapWords: lines break at spaces only, never inside a path or at a
// flag's hyphens; a word wider than the width is cut.
func TestWrapWords(t *testing.T) {
	got := WrapWords("module invoke notes.report --input /tmp/modbay-run-736057409/request.json", 40)
	want := "module invoke notes.report --input\n/tmp/modbay-run-736057409/request.json"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := WrapWords("a "+strings.Repeat("x", 25), 10); got != "a\nxxxxxxxxxx\nxxxxxxxxxx\nxxxxx" {
		t.Fatalf("long word: %q", got)
	}
}
