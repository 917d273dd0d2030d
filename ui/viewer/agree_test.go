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
// viewer's header and status lines, the JSON tree's glyphs).
func TestRenderAndViewerAgree(t *testing.T) {
	inputs := []struct{ file, media, pres string }{
		{"codespan.md", "text/markdown", "markdown"},
		{"codeblock.md", "text/markdown", "markdown"},
		{"tags.txt", "text/plain", "text"},
		{"deep.json", "application/json", "json"},
	}
	for _, in := range inputs {
		src, err := os.ReadFile("../../render/testdata/fidelity/" + in.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{40, 79, 80, 81, 120} {
			if in.pres == "json" && w < 79 {
				// The tree cuts a leaf past the width with "…" (enter
				// shows it whole): not the same text at 40 yet.
				continue
			}
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
			lines := strings.Split(ansi.Strip(f.frame()), "\n")
			var kept []string
			for _, l := range lines[headerLines : len(lines)-1] {
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
	drop := " \n|│"
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
