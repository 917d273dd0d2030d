package render

import (
	"modbay/cellwidth"
	"os"
	"strings"
	"testing"

	xansi "github.com/charmbracelet/x/ansi"
)

// TestDecodeImageBadAncillaryCRC: a PNG whose tEXt chunk has a bad CRC
// (as the MCP reference server's tiny image has) decodes, with a note.
func TestDecodeImageBadAncillaryCRC(t *testing.T) {
	src, err := os.ReadFile("testdata/badcrc.png")
	if err != nil {
		t.Fatal(err)
	}
	img, info, err := DecodeImage(src)
	if err != nil || img == nil || img.Bounds().Dx() != 2 {
		t.Fatalf("DecodeImage: %v", err)
	}
	if !strings.Contains(info.Note, "tEXt has a bad CRC") {
		t.Errorf("note %q, want it to name the skipped chunk", info.Note)
	}
	// A critical chunk with a bad CRC is still refused.
	bad := append([]byte(nil), src...)
	bad[8+8+13] ^= 0xff // IHDR's CRC
	if _, _, err := DecodeImage(bad); err == nil {
		t.Error("a PNG with a bad IHDR CRC decoded")
	}
}

// TestTagCharactersInert: Unicode tag characters (invisible ASCII) and
// zero width spaces show as <U+XXXX> in text, JSON and table views.
func TestTagCharactersInert(t *testing.T) {
	for _, c := range []struct{ file, pres string }{{"tags.txt", "text"}, {"tags.json", "json"}, {"tags.csv", "table"}} {
		src, err := os.ReadFile("testdata/fidelity/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Artifact(src, Meta{Presentation: c.pres}, Options{Width: 200, NoColor: true})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		for _, r := range out {
			if r >= 0xE0000 && r <= 0xE007F || r == 0x200B {
				t.Errorf("%s: %U reaches the terminal:\n%s", c.file, r, out)
				break
			}
		}
		if !strings.Contains(out, "visible<U+E0069><U+E0067>") {
			t.Errorf("%s: the tag characters are not shown:\n%s", c.file, out)
		}
	}
}

// TestCodeSpanEntitiesLiteral: entities inside inline code are shown as
// typed (CommonMark §6.1); outside code they are decoded.
func TestCodeSpanEntitiesLiteral(t *testing.T) {
	src, err := os.ReadFile("testdata/fidelity/codespan.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range fidelityWidths {
		out, err := Markdown(src, Options{Width: w, NoColor: true})
		if err != nil {
			t.Fatal(err)
		}
		flat := strings.Join(strings.Fields(out), " ")
		if !strings.Contains(flat, "Use &gt; and a &amp; b here, and & outside.") {
			t.Errorf("width %d: %q", w, flat)
		}
	}
}

// fidelityWidths are the widths every fidelity input is checked at.
var fidelityWidths = []int{40, 79, 80, 81, 120}

// TestCodeBlockLinesWhole: a long code line is soft-wrapped at spaces,
// its tokens whole and its continuations under its own indent, at every
// width; no token is lost or changed.
func TestCodeBlockLinesWhole(t *testing.T) {
	src, err := os.ReadFile("testdata/fidelity/codeblock.md")
	if err != nil {
		t.Fatal(err)
	}
	tokens := strings.Fields("./configure --enable-shared --with-something-long --prefix=/usr/local --libdir=/usr/local/lib64 --sysconfdir=/etc")
	for _, w := range fidelityWidths {
		out, err := Markdown(src, Options{Width: w, NoColor: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) > 0 && strings.HasPrefix(f[0], "-") || strings.Contains(l, "./configure") {
				if !strings.HasPrefix(l, "      ") {
					t.Errorf("width %d: %q leaves the block's indent", w, l)
				}
				got = append(got, f...)
			}
		}
		if strings.Join(got, " ") != strings.Join(tokens, " ") {
			t.Errorf("width %d: code tokens %q, want %q:\n%s", w, got, tokens, out)
		}
	}
}

// TestBlockquoteBarsEveryLine: every wrapped line of a blockquote keeps
// its bar, at every width.
func TestBlockquoteBarsEveryLine(t *testing.T) {
	src, err := os.ReadFile("testdata/fidelity/codeblock.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range fidelityWidths {
		out, _ := Markdown(src, Options{Width: w, NoColor: true})
		_, quote, _ := strings.Cut(out, "```")
		_, quote, _ = strings.Cut(out, "/etc")
		var words []string
		for _, l := range strings.Split(quote, "\n")[1:] {
			if strings.TrimSpace(l) == "" {
				continue
			}
			if !strings.HasPrefix(strings.TrimLeft(l, " "), "| ") {
				t.Errorf("width %d: %q has no quote bar:\n%s", w, l, out)
			}
			words = append(words, strings.Fields(strings.TrimPrefix(strings.TrimLeft(l, " "), "| "))...)
		}
		if want := "A quoted line that is long enough to wrap at every one of the widths we try, even at one hundred and twenty columns wide."; strings.Join(words, " ") != want {
			t.Errorf("width %d: quote %q", w, strings.Join(words, " "))
		}
	}
}

// TestJSONKeysWhole: deep JSON at narrow widths never splits a key; the
// text is the same at every width.
func TestJSONKeysWhole(t *testing.T) {
	src, err := os.ReadFile("testdata/fidelity/deep.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range fidelityWidths {
		for _, color := range []bool{false, true} {
			out, err := JSON(src, Options{Width: w, NoColor: !color, Dark: true})
			if err != nil {
				t.Fatal(err)
			}
			plain := stripForTest(out)
			if !strings.Contains(plain, `"key_that_is_long": "value"`) {
				t.Errorf("width %d color %v: the key is split:\n%s", w, color, plain)
			}
			for _, l := range strings.Split(plain, "\n") {
				if cellWidth(l) > w {
					t.Errorf("width %d: line %q is wider", w, l)
				}
			}
			if got := strings.Join(strings.Fields(plain), ""); got != strings.Join(strings.Fields(string(src)), "") {
				t.Errorf("width %d: text changed: %s", w, got)
			}
		}
	}
}

// TestTSVAmbiguousQuoting: a TSV whose quoted cell spans lines says so,
// and reads as CSV on request.
func TestTSVAmbiguousQuoting(t *testing.T) {
	src, err := os.ReadFile("testdata/fidelity/multiline.tsv")
	if err != nil {
		t.Fatal(err)
	}
	td, err := ParseTable(src, "text/tab-separated-values")
	if err != nil || !strings.Contains(td.Ambiguous, "read as TSV (no quoting), it is 4 rows; read as CSV, 3") {
		t.Fatalf("ambiguity %q, %v", td.Ambiguous, err)
	}
	out, _ := Table(src, "text/tab-separated-values", Options{Width: 80, NoColor: true})
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "ambiguous quoting:") {
		t.Errorf("the table does not say its quoting is ambiguous:\n%s", out)
	}
	csv, err := ParseTable(src, "text/csv")
	if err != nil || len(csv.Rows) != 2 || csv.Rows[0][1] != "first line\nsecond line" {
		t.Errorf("as CSV: %q, %v", csv.Rows, err)
	}
	// Quotes closed on their line are not ambiguous.
	if td, _ := ParseTable([]byte("a\tb\n\"x\"\t1\n"), "text/tab-separated-values"); td.Ambiguous != "" {
		t.Errorf("closed quotes: %q", td.Ambiguous)
	}
}

// TestHalfwidthKanaWidths: a cell of halfwidth kana with sound marks is
// measured as terminals draw it: every table line fits and a cut cell
// ends in "…", the next column still shown.
func TestHalfwidthKanaWidths(t *testing.T) {
	src, err := os.ReadFile("testdata/fidelity/kana.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{30, 40} {
		out, _ := Table(src, "text/tab-separated-values", Options{Width: w, NoColor: true})
		for _, l := range strings.Split(out, "\n") {
			if cw := cellwidth.String(l); cw > w {
				t.Errorf("width %d: %q is %d cells on screen", w, l, cw)
			}
		}
		if !strings.Contains(out, "…") || !strings.Contains(out, "after") {
			t.Errorf("width %d: the cut is not marked or the next column is lost:\n%s", w, out)
		}
	}
}

// TestCodeBlockHardCutMarked: a code token wider than the line is cut
// where it must be, each cut marked with hardCutMark and the token going
// on under the line's indent; joined again, the token is whole.
func TestCodeBlockHardCutMarked(t *testing.T) {
	src, err := os.ReadFile("testdata/fidelity/longtoken.md")
	if err != nil {
		t.Fatal(err)
	}
	const token = "https://example.com/a/very/long/path/that/has/no/space/to/break/at/anywhere/in/it/at/all/index.html?query=1&other=2"
	for _, w := range fidelityWidths {
		for _, color := range []bool{false, true} {
			out, err := Markdown(src, Options{Width: w, NoColor: !color})
			if err != nil {
				t.Fatal(err)
			}
			plain := strings.Split(strings.Trim(xansi.Strip(out), "\n"), "\n")
			var joined strings.Builder
			cuts := 0
			for i, l := range plain {
				if cellwidth.String(l) > w {
					t.Errorf("width %d: line %q is wider than the width", w, l)
				}
				if strings.TrimSpace(l) == "" {
					t.Errorf("width %d color %v: blank line %d inside the block:\n%s", w, color, i, xansi.Strip(out))
				}
				l = strings.TrimRight(l, " ")
				if s, ok := strings.CutSuffix(l, hardCutMark); ok {
					l = s
					cuts++
				} else if i > 0 && i < len(plain)-1 {
					t.Errorf("width %d: line %q is cut with no mark", w, l)
				}
				if !strings.HasPrefix(l, "      ") {
					t.Errorf("width %d: %q leaves the line's indent", w, l)
				}
				joined.WriteString(strings.TrimLeft(l, " "))
			}
			if got := strings.TrimPrefix(joined.String(), "curl"); got != token {
				t.Errorf("width %d: token rejoined %q, want %q", w, got, token)
			}
			// "curl" breaks at its space; every later line but the last is a cut.
			if plain[0] != "      curl" {
				t.Errorf("width %d: first line %q, want the soft break after curl", w, plain[0])
			}
			if want := len(plain) - 2; cuts != want || cuts == 0 {
				t.Errorf("width %d: %d cuts marked over %d lines", w, cuts, len(plain))
			}
		}
	}
}

// TestScrollCodeKeepsLinesWhole: under ScrollCode every code line is one
// line between CodeStart and CodeEnd, as written, whatever the width; the
// rest is still wrapped to the width, and marks in the source are inert.
func TestScrollCodeKeepsLinesWhole(t *testing.T) {
	src, err := os.ReadFile("testdata/fidelity/codeblock.md")
	if err != nil {
		t.Fatal(err)
	}
	const line = "    ./configure --enable-shared --with-something-long --prefix=/usr/local --libdir=/usr/local/lib64 --sysconfdir=/etc"
	src = append(src, "\nforged "+CodeStart+"mark"+CodeEnd+"\n"...)
	for _, w := range fidelityWidths {
		for _, color := range []bool{false, true} {
			out, err := Markdown(src, Options{Width: w, NoColor: !color, ScrollCode: true})
			if err != nil {
				t.Fatal(err)
			}
			plain := xansi.Strip(out)
			if n := strings.Count(plain, CodeStart); n != 1 {
				t.Fatalf("width %d: %d marked code lines, want 1:\n%q", w, n, plain)
			}
			for l := range strings.Lines(plain) {
				l = strings.TrimSuffix(l, "\n")
				if i := strings.Index(l, CodeStart); i >= 0 {
					code, _, ok := strings.Cut(l[i+len(CodeStart):], CodeEnd)
					if !ok || code != line {
						t.Errorf("width %d: code line %q, want %q", w, code, line)
					}
				} else if cellwidth.String(l) > w {
					t.Errorf("width %d: line %q is wider than the width", w, l)
				}
			}
			if !strings.Contains(plain, "forged \uFFFDmark\uFFFD") {
				t.Errorf("width %d: a mark in the source is not made inert:\n%s", w, plain)
			}
		}
	}
}
