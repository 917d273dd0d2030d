package styles

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestEveryUIGlyphHasAnASCIIStandIn: every non-ASCII character in a
// string literal of the cockpit's code (ui/ and below, tests left out)
// has an ASCII stand-in in the glyph table, so an ASCII terminal never
// gets one untranslated.
func TestEveryUIGlyphHasAnASCIIStandIn(t *testing.T) {
	missing := map[rune]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "uitest") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || (lit.Kind != token.STRING && lit.Kind != token.CHAR) {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, r := range s {
				// A format character (a BOM trimmed) is never drawn.
				if r >= utf8.RuneSelf && unicode.IsGraphic(r) && !isASCII(ToASCII(string(r))) {
					missing[r] = path
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r, path := range missing {
		t.Errorf("%q (U+%04X, in %s) has no ASCII stand-in in asciiGlyphs", r, r, path)
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
