package styles

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// drawn are the folders, from the repository root, whose string literals
// can reach the cockpit's frame.
var drawn = []string{"ui", "render", "probe", "schema", "runner", "history", "mcp", "modproto", "contain", "skills", "internal/words", "config"}

// notDrawn are non-ASCII runes in those literals that never reach a
// frame as they are: what the sanitizer removes or replaces (format and
// bidi controls, the byte order mark, Hangul fillers), the renderer's
// private-use markers (replaced before drawing) and the half-width
// voiced marks the width table measures.
func notDrawn(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Co, r) || unicode.Is(unicode.Mn, r) ||
		r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0 || r == 0xff9e || r == 0xff9f
}

// literalRunes returns each non-ASCII rune of the string and rune
// literals of the non-test Go files under dir, with a file it is in.
func literalRunes(t *testing.T, dir string, into map[rune]string) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() && info.Name() == "testdata" {
			return filepath.SkipDir
		}
		if info.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var s scanner.Scanner
		s.Init(token.NewFileSet().AddFile(p, -1, len(src)), src, nil, 0)
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				return nil
			}
			v := lit
			switch tok {
			case token.STRING:
				if u, err := strconv.Unquote(lit); err == nil {
					v = u
				}
			case token.CHAR:
				if r, _, _, err := strconv.UnquoteChar(lit[1:len(lit)-1], '\''); err == nil {
					v = string(r)
				}
			default:
				continue
			}
			for _, r := range v {
				if r > 0x7f {
					into[r] = p
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEveryDrawnGlyphHasAStandIn: every non-ASCII rune in a literal the
// cockpit can draw is in the glyph table, and what a frame shows under
// ASCII is ASCII.
func TestEveryDrawnGlyphHasAStandIn(t *testing.T) {
	found := map[rune]string{}
	for _, d := range drawn {
		literalRunes(t, filepath.Join("..", "..", d), found)
	}
	if len(found) < 20 {
		t.Fatalf("found only %d glyphs: the walk is broken", len(found))
	}
	table := map[string]bool{}
	for i := 0; i < len(asciiGlyphs); i += 2 {
		table[asciiGlyphs[i]] = true
	}
	for r, file := range found {
		if notDrawn(r) {
			continue
		}
		if !table[string(r)] {
			t.Errorf("%q (%U, in %s) has no ASCII stand-in", r, r, file)
			continue
		}
		for _, out := range []string{ToASCII(string(r)), FitASCII(string(r), 10)} {
			for _, c := range out {
				if c > 0x7f {
					t.Errorf("%q stands in as %q: not ASCII", r, out)
				}
			}
		}
	}
}

// TestASCIIKeepsMeaning: a stand-in says what its glyph says: ≤ is "<=",
// never "<"; a tab is ^I; an ellipsis is "..." (a lone "~" reads as the
// home folder in a path).
func TestASCIIKeepsMeaning(t *testing.T) {
	for glyph, want := range map[string]string{
		"≤": "<=", "≥": ">=", "≠": "!=", "±": "+-", "…": "...", "␉": "^I", "␛": "^[", "␍": "^M", "⏎": "^J", "␀": "^@",
		"✓": "+", "✗": "x", "→": ">", "·": ".", "≈": "~", "−": "-",
	} {
		if got := FitASCII(glyph, 10); got != want {
			t.Errorf("%q stands in as %q, want %q", glyph, got, want)
		}
	}
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		// The wider stand-ins eat trailing padding.
		{"integer · ≥ 1 · ≤ 200    ", 25, "integer . >= 1 . <= 200  "},
		{"≤ 8192 chars  ", 14, "<= 8192 chars "},
		{"\x1b[2m≤ 8192 chars\x1b[0m ", 13, "\x1b[2m<= 8192 chars\x1b[0m"},
		// A line that has no room falls back to one cell each.
		{"|≤ 8192 chars|", 14, "|< 8192 chars|"},
		{"a\tb: a␉b", 20, "a\tb: a^Ib"},
		{"plain", 5, "plain"},
	} {
		got := FitASCII(c.in, c.width)
		if got != c.want {
			t.Errorf("FitASCII(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
		if w := ansi.StringWidth(got); w > c.width {
			t.Errorf("FitASCII(%q, %d) is %d cells", c.in, c.width, w)
		}
	}
	if got := FitASCII("≤ a|\n≥ b  ", 4); got != "< a|\n>= b" {
		t.Errorf("two lines, one with room: %q", got)
	}
}
