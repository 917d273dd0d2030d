package viewer

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"modbay/render"
)

// TestRenderAndViewerAgree: for each fidelity input, `modbay render`
// (render.Artifact) and the cockpit's viewer show the same text at 40,
// 79, 80, 81 and 120 columns — layout aside (wrapping, quote bars, the
// viewer's header and status lines, the JSON tree's glyphs). The viewer
// scrolls code sideways where render wraps it: its code lines are read
// whole by scrolling them (unscrolled); render's cut marks are layout.
func TestRenderAndViewerAgree(t *testing.T) {
	inputs := []struct{ file, media, pres string }{
		{"codespan.md", "text/markdown", "markdown"},
		{"codeblock.md", "text/markdown", "markdown"},
		{"longtoken.md", "text/markdown", "markdown"},
		{"tags.txt", "text/plain", "text"},
		{"deep.json", "application/json", "json"},
		{"longleaf.json", "application/json", "json"},
	}
	for _, in := range inputs {
		src, err := os.ReadFile("../../render/testdata/fidelity/" + in.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{40, 79, 80, 81, 120} {
			out, err := render.Artifact(src, render.Meta{MediaType: in.media, Presentation: in.pres}, render.Options{Width: w, NoColor: true})
			if err != nil {
				t.Fatal(err)
			}
			f := open(t, in.file, src, in.media, in.pres, w, 400, false)
			switch in.pres {
			case "text":
				f.key("#") // line numbers off: the text alone
			case "json":
				f.key("e") // the whole tree
			}
			var body []string
			if in.pres == "markdown" {
				body = unscrolled(t, f, w)
			} else {
				lines := strings.Split(ansi.Strip(f.frame()), "\n")
				body = lines[headerLines : len(lines)-1]
			}
			var kept []string
			for _, l := range body {
				if !strings.HasPrefix(strings.TrimSpace(l), "path ") { // the tree's cursor path
					kept = append(kept, l)
				}
			}
			shown := strings.Join(kept, "\n")
			if a, b := content(out, in.pres), content(shown, in.pres); a != b {
				t.Errorf("%s at %d: render and the viewer differ:\nrender: %s\nviewer: %s", in.file, w, a, b)
			}
		}
	}
}

// treeNotes are the JSON tree's own words: member counts, depth marks.
var treeNotes = regexp.MustCompile(`\d+ (keys?|items?)|\d+›`)

// content is what a rendering says, without its layout: every
// character but spaces, quote bars and (for JSON) the tree's glyphs and
// punctuation, in order.
func content(s, pres string) string {
	drop := " \n|│↩"
	if pres == "json" {
		// The tree's member counts ("1 key") and depth marks ("7›").
		s = treeNotes.ReplaceAllString(s, "")
		drop += "{}[],:▾▸"
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(drop, r) {
			return -1
		}
		return r
	}, s)
}

// unscrolled is the markdown viewer's body with every code line whole,
// read off the screen as a person reads it: pressing → until the code
// scrolls no further, each frame's code cells are put back at their
// columns ("‹" and "›" at the edges are marks, not text). It fails when a
// column of a code line never showed. Code in the inputs is one cell per
// rune.
func unscrolled(t *testing.T, f *fixture, w int) []string {
	t.Helper()
	md, ok := f.m.body.(*markdown)
	if !ok {
		t.Fatalf("body is %T, not markdown", f.m.body)
	}
	var base []string
	cols := map[int]map[int]rune{} // body row → column → rune
	for {
		lines := strings.Split(ansi.Strip(f.frame()), "\n")
		lines = lines[headerLines : len(lines)-1]
		if base == nil {
			base = lines
		}
		for r, l := range lines {
			head, code, _, ok := splitCode(md.line(md.top + r))
			if !ok {
				continue
			}
			if cols[r] == nil {
				cols[r] = map[int]rune{}
			}
			hw, room, cw := len([]rune(head)), md.codeRoom(head), len([]rune(code))
			vis := []rune(l)[min(hw, len([]rune(l))):]
			for j, c := range vis {
				if j == 0 && md.xoff > 0 && c == '‹' || j == room-1 && cw > md.xoff+room && c == '›' {
					continue
				}
				cols[r][md.xoff+j] = c
			}
		}
		was := md.xoff
		f.key("right")
		if md.xoff == was {
			break
		}
	}
	for r, m := range cols {
		head, code, _, _ := splitCode(md.line(md.top + r))
		var b strings.Builder
		for c := range len([]rune(code)) {
			ch, ok := m[c]
			if !ok {
				t.Errorf("at %d: column %d of code line %q never showed", w, c, code)
			}
			b.WriteRune(ch)
		}
		base[r] = head + b.String()
	}
	return base
}
