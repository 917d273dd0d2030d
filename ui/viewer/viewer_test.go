package viewer

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/internal/testcorpus"
	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/internal/uitest"
)

// fixture is a viewer over a file written to a temp dir.
type fixture struct {
	t *testing.T
	m *Model
	// clip records what was put on the clipboard.
	clip []string
}

// open writes src as an artifact and loads it in a w×h viewer (NoColor
// unless color), running every Cmd to completion.
func open(t *testing.T, name string, src []byte, mediaType, presentation string, w, h int, color bool) *fixture {
	t.Helper()
	// A stable directory, so the staged path in a golden frame is too.
	dir := filepath.Join(os.TempDir(), "modbay-viewer-test", strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, name)
	os.Remove(path)
	if err := os.WriteFile(path, src, 0o444); err != nil {
		t.Fatal(err)
	}
	return openPath(t, path, int64(len(src)), modproto.Digest(src), mediaType, presentation, w, h, color, nil)
}

// openPath loads an existing file as an artifact.
func openPath(t *testing.T, path string, size int64, digest, mediaType, presentation string, w, h int, color bool, siblings []runner.VerifiedArtifact) *fixture {
	t.Helper()
	com := common.New(!color)
	com.Width, com.Height = w, h
	a := runner.VerifiedArtifact{
		Artifact: modproto.Artifact{ID: "a1", Kind: "report/v1", Title: filepath.Base(path), Path: filepath.Base(path),
			MediaType: mediaType, Presentation: presentation, Digest: digest, Bytes: size},
		Staged: path, Size: size,
	}
	f := &fixture{t: t, m: New(com, DefaultKeyMap(), Env{}, "req-1", a, siblings, t.TempDir())}
	f.run(f.m.Load())
	if f.m.Loading() {
		t.Fatal("still loading after its Cmds ran")
	}
	return f
}

// run executes cmd and feeds the viewer every message it produces,
// recursively (batches included), as the Bubble Tea runtime would.
func (f *fixture) run(cmd tea.Cmd) {
	f.t.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case Msg:
			_, next := f.m.Update(msg)
			queue = append(queue, next)
		case nil:
		default:
			if s := fmt.Sprintf("%v", msg); strings.Contains(fmt.Sprintf("%T", msg), "setClipboard") {
				f.clip = append(f.clip, s)
			}
		}
	}
}

// key presses keys in order ("pgdown", "G" and single runes included).
func (f *fixture) key(keys ...string) Action {
	f.t.Helper()
	var last Action
	for _, k := range keys {
		var kp tea.KeyPressMsg
		switch k {
		case "pgdown":
			kp = tea.KeyPressMsg{Code: tea.KeyPgDown}
		case "pgup":
			kp = tea.KeyPressMsg{Code: tea.KeyPgUp}
		default:
			kp = uitest.Key(k)
		}
		act, cmd := f.m.Update(kp)
		f.run(cmd)
		last = act
	}
	return last
}

// typeText types s into whatever prompt is open.
func (f *fixture) typeText(s string) {
	for _, msg := range uitest.Type(s) {
		_, cmd := f.m.Update(msg)
		f.run(cmd)
	}
}

// frame returns the view, checking that it fits the area.
func (f *fixture) frame() string {
	f.t.Helper()
	out := f.m.View()
	lines := strings.Split(out, "\n")
	if len(lines) > f.m.height {
		f.t.Errorf("frame is %d lines, area %d", len(lines), f.m.height)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > f.m.width {
			f.t.Errorf("line %d is %d cells wide, max %d: %q", i+1, w, f.m.width, ansi.Strip(l))
		}
	}
	return out
}

// inert fails when s holds an escape other than SGR styling.
func inert(t *testing.T, s string) {
	t.Helper()
	rest := s
	for {
		i := strings.IndexByte(rest, 0x1b)
		if i < 0 {
			break
		}
		seq := rest[i:]
		if strings.HasPrefix(seq, "\x1b]8;") { // glamour's own hyperlinks
			end, n := strings.IndexAny(seq[4:], "\x1b\x07"), 1
			if end >= 0 && seq[4+end] == 0x1b {
				n = 2
				if !strings.HasPrefix(seq[4+end:], "\x1b\\") {
					t.Fatalf("bad hyperlink in frame: %q", seq[:min(len(seq), 40)])
				}
			}
			if end < 0 {
				t.Fatalf("unterminated hyperlink in frame: %q", seq[:min(len(seq), 40)])
			}
			rest = seq[4+end+n:]
			continue
		}
		j := strings.IndexByte(seq, 'm')
		if !strings.HasPrefix(seq, "\x1b[") || j < 0 || strings.ContainsAny(seq[2:j], "\x1b]") {
			t.Fatalf("non-SGR escape in frame: %q", seq[:min(len(seq), 20)])
		}
		rest = seq[j+1:]
	}
	for _, r := range ansi.Strip(s) {
		if r < 0x20 && r != '\n' || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			t.Fatalf("control character %U in frame", r)
		}
	}
}

// readCorpus reads corpus file rel (slash-separated); without the shared
// corpus it skips t (fails it under CI).
func readCorpus(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(testcorpus.Dir(t, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// corpus lists the files of corpus directory dir but SOURCES.tsv; without
// the shared corpus it skips t (fails it under CI).
func corpus(t *testing.T, dir string) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(testcorpus.Dir(t, dir), "*"))
	var out []string
	for _, p := range paths {
		if filepath.Base(p) != "SOURCES.tsv" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no corpus in %s", dir)
	}
	return out
}

func mediaTypeOf(path string) string {
	switch filepath.Ext(path) {
	case ".md":
		return "text/markdown"
	case ".csv":
		return "text/csv"
	case ".json":
		return "application/json"
	}
	return "text/plain"
}

func TestMarkdownCorpusViewer(t *testing.T) {
	for _, path := range corpus(t, "markdown") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, _ := os.ReadFile(path)
			for _, w := range []int{40, 80, 120} {
				f := open(t, filepath.Base(path), src, "text/markdown", "", w, 30, w == 120)
				out := f.frame()
				if lines := strings.Split(f.m.body.View(), "\n"); !strings.Contains(lines[len(lines)-1], "all") && !strings.Contains(lines[len(lines)-1], "lines") {
					t.Errorf("width %d: no pager footer:\n%s", w, out)
				}
				if len(strings.TrimSpace(ansi.Strip(f.m.body.View()))) < 20 {
					t.Errorf("width %d: body is empty:\n%s", w, out)
				}
				f.key("pgdown", "pgdown", "G")
				inert(t, f.frame())
			}
		})
	}
}

func TestTableCorpusViewer(t *testing.T) {
	for _, path := range corpus(t, "tables") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, _ := os.ReadFile(path)
			for _, w := range []int{40, 80, 120} {
				f := open(t, filepath.Base(path), src, mediaTypeOf(path), "table", w, 24, w == 80)
				tb, ok := f.m.body.(*table)
				if !ok {
					t.Fatalf("body is %T, want a table", f.m.body)
				}
				out := ansi.Strip(f.frame())
				first := []rune(cell(tb.td.Header[0]))
				if !strings.Contains(out, string(first[:min(3, len(first))])) {
					t.Errorf("width %d: first column %q not shown:\n%s", w, tb.td.Header[0], out)
				}
				f.key("pgdown", "right", "right", "S", "enter")
				f.frame()
				f.key("esc", "G", "S")
				inert(t, f.frame())
			}
		})
	}
}

func TestGoldenMarkdown(t *testing.T) {
	for _, name := range []string{"markdown-test-file__TEST.md", "glamour__issue-46_2_wide-cells-table.md", "zoxide__README.md"} {
		t.Run(name, func(t *testing.T) {
			f := open(t, name, readCorpus(t, "markdown/"+name), "text/markdown", "", 80, 24, false)
			golden.RequireEqual(t, []byte(f.frame()))
		})
	}
}

func TestGoldenTable(t *testing.T) {
	for _, name := range []string{"datasets__country-codes.csv", "worldbank__sp.dyn.cbrt.in_Indicator_en_csv_v2.csv", "mledoze__countries-unescaped.json"} {
		t.Run(name, func(t *testing.T) {
			f := open(t, name, readCorpus(t, "tables/"+name), mediaTypeOf(name), "table", 100, 24, false)
			golden.RequireEqual(t, []byte(f.frame()))
		})
	}
}

// timelineJSON is the render-farm example's artifact shape.
const timelineJSON = `{"title":"Render of intro","job_id":"job-7","started_at":"2026-11-30T03:00:00Z","unit":"ms","duration_ms":1500,
"events":[{"label":"frame 1","start_ms":0,"end_ms":400,"state":"done"},{"label":"frame 2","start_ms":400,"end_ms":900,"state":"done"},
{"label":"frame 3","start_ms":900,"end_ms":1500,"state":"failed"}]}`

// pngOf encodes a w×h gradient.
func pngOf(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(255 * x / w), uint8(255 * y / h), 128, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGoldenEveryViewer(t *testing.T) {
	cases := []struct {
		name, file, mt, pres, src string
		keys                      []string
	}{
		{"json", "report.json", "application/json", "", `{"title":"Q1","rows":[{"id":1,"ok":true},{"id":2,"ok":null}],"evil":"\u001b[2J","n":1e400}`, []string{"down", "down", "enter", "down"}},
		{"text", "log.txt", "text/plain", "", "line one\n\tindented line\nline three is a little longer than the rest of them, so it wraps at sixty cells wide\n", nil},
		{"timeline", "timeline.json", "application/json", "timeline", timelineJSON, nil},
		{"diagram", "flow.mmd", "text/vnd.mermaid", "", "graph TD\n  A[Start] -->|go| B{Choice}\n  B --> C[\"Done\"]\n  %% a comment\n", nil},
		{"slides", "deck.md", "text/markdown", "slides", "# One\n\nfirst\n\n---\n\n# Two\n\n- a\n- b\n", []string{"right"}},
		{"download", "bundle.zip", "application/zip", "", "PK\x03\x04rest", nil},
		{"video", "clip.mp4", "video/mp4", "", "\x00\x00\x00\x18ftypmp42", nil},
		{"document", "paper.pdf", "application/pdf", "", "%PDF-1.4\n1 0 obj << /Type /Pages /Count 3 >> endobj\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := open(t, c.file, []byte(c.src), c.mt, c.pres, 60, 16, false)
			f.key(c.keys...)
			golden.RequireEqual(t, []byte(f.frame()))
		})
	}
	t.Run("image", func(t *testing.T) {
		f := open(t, "pic.png", pngOf(t, 64, 32), "image/png", "", 60, 16, false)
		out := f.frame()
		if !strings.Contains(out, "PNG · 64×32 pixels") {
			t.Fatalf("image frame:\n%s", out)
		}
		golden.RequireEqual(t, []byte(out))
	})
}

func TestTableSortFilterDetailScroll(t *testing.T) {
	src := "name,qty,city\nb,10,Oslo\na,9,Lima\nc,100,Pune\n"
	f := open(t, "t.csv", []byte(src), "text/csv", "", 60, 12, false)
	tb := f.m.body.(*table)
	f.key("right", "S") // sort by qty ascending, numerically
	if got := tb.td.Row(int(tb.order[0]))[0]; got != "a" {
		t.Fatalf("first after numeric sort = %q, want a", got)
	}
	f.key("S")
	if got := tb.td.Row(int(tb.order[0]))[0]; got != "c" {
		t.Fatalf("first after descending sort = %q, want c", got)
	}
	f.key("/")
	if !f.m.Typing() {
		t.Fatal("filter prompt not open")
	}
	f.typeText("lim")
	f.key("enter")
	if len(tb.order) != 1 || tb.td.Row(int(tb.order[0]))[2] != "Lima" {
		t.Fatalf("filter lim: %v", tb.order)
	}
	f.key("enter")
	if out := ansi.Strip(f.frame()); !strings.Contains(out, "Row 1 of 1 as shown (row 2 of 3 in the file)") || !strings.Contains(out, "Lima") {
		t.Fatalf("detail:\n%s", out)
	}
	if act := f.key("esc"); act != nil || tb.detail != nil {
		t.Fatal("esc did not close the detail")
	}
	f.key("esc") // clears the filter
	if len(tb.order) != 3 {
		t.Fatalf("filter not cleared: %d rows", len(tb.order))
	}
	if _, ok := f.key("esc").(ActionBack); !ok {
		t.Fatal("esc with nothing open should leave the viewer")
	}
}

func TestTableMalformedShowsWhereItBroke(t *testing.T) {
	src := "a,b\n1,2\n3,\"unterminated\n4,5\n"
	f := open(t, "bad.csv", []byte(src), "text/csv", "", 80, 12, false)
	out := ansi.Strip(f.frame())
	if !strings.Contains(out, "Parsed 1 rows") || !strings.Contains(out, "line 4") {
		t.Fatalf("malformed frame:\n%s", out)
	}
}

func TestTableHorizontalScroll(t *testing.T) {
	var b strings.Builder
	for j := range 30 {
		fmt.Fprintf(&b, "column_%02d,", j)
	}
	b.WriteString("\n")
	for j := range 30 {
		fmt.Fprintf(&b, "value_%02d,", j)
	}
	f := open(t, "wide.csv", []byte(b.String()+"\n"), "text/csv", "", 60, 10, false)
	if strings.Contains(f.frame(), "column_29") {
		t.Fatal("last column visible before scrolling")
	}
	for range 29 {
		f.key("right")
	}
	if out := f.frame(); !strings.Contains(out, "column_29") || strings.Contains(out, "column_00") {
		t.Fatalf("after scrolling right:\n%s", out)
	}
}

func TestTreeExpandCollapsePathSearch(t *testing.T) {
	src := `{"a":{"b":[10,20,{"deep key":"needle"}]},"z":1}`
	f := open(t, "d.json", []byte(src), "application/json", "", 60, 14, false)
	tr := f.m.body.(*tree)
	f.key("down", "enter", "down", "enter", "down", "down", "down")
	if p := tr.Path(tr.cur); p != ".a.b[2]" {
		t.Fatalf("path = %q, want .a.b[2]", p)
	}
	f.key("y")
	if len(f.clip) != 1 || f.clip[0] != ".a.b[2]" {
		t.Fatalf("clipboard = %q", f.clip)
	}
	f.key("c")
	if len(tr.rows) != 1 {
		t.Fatalf("collapse all left %d rows", len(tr.rows))
	}
	f.key("/")
	f.typeText("NEEDLE")
	f.key("enter")
	if p := tr.Path(tr.cur); p != `.a.b[2]["deep key"]` {
		t.Fatalf("search landed on %q", p)
	}
	if out := f.frame(); !strings.Contains(out, `.a.b[2]["deep key"]`) {
		t.Fatalf("path not shown:\n%s", out)
	}
	f.key("e")
	if len(tr.rows) != 8 {
		t.Fatalf("expand all: %d rows, want 8", len(tr.rows))
	}
}

func TestJSONLinesAndInvalidJSON(t *testing.T) {
	f := open(t, "s.jsonl", []byte("{\"a\":1}\n{\"a\":2}\n"), "application/json", "", 60, 10, false)
	if tr, ok := f.m.body.(*tree); !ok || len(tr.roots) != 2 || tr.Path(1) != "[1]" {
		t.Fatalf("JSON Lines body %T", f.m.body)
	}
	f = open(t, "bad.json", []byte(`{"a": [1, 2`), "application/json", "", 60, 10, false)
	if _, ok := f.m.body.(*text); !ok || f.m.Err() == nil || !strings.Contains(f.m.Err().Error(), "line 1") {
		t.Fatalf("invalid JSON: body %T err %v", f.m.body, f.m.Err())
	}
}

func TestTextWrapNumbersSearchBinary(t *testing.T) {
	long := strings.Repeat("word ", 40)
	f := open(t, "a.txt", []byte("first\n"+long+"\nneedle here\n"), "text/plain", "", 40, 12, false)
	tx := f.m.body.(*text)
	wrapped := len(tx.pager.lines)
	f.key("w")
	if len(tx.pager.lines) != 3 || wrapped <= 3 {
		t.Fatalf("wrap toggle: %d then %d lines", wrapped, len(tx.pager.lines))
	}
	if !strings.Contains(f.frame(), "1 first") {
		t.Fatal("no line numbers")
	}
	f.key("#")
	if strings.Contains(f.frame(), "1 first") {
		t.Fatal("line numbers not toggled off")
	}
	f.key("/")
	f.typeText("needle")
	f.key("enter")
	if !strings.Contains(tx.pager.status, "match 1/1") {
		t.Fatalf("search status %q", tx.pager.status)
	}
	f = open(t, "b.txt", []byte("\x00\x01\x02binary"), "text/plain", "", 60, 12, false)
	if out := f.frame(); !strings.Contains(out, "Binary data") || !strings.Contains(out, "download") {
		t.Fatalf("binary text:\n%s", out)
	}
}

func TestMarkdownSearchAndReflow(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "## Section %d\n\nSome text for section %d with a [link](https://example.com).\n\n", i, i)
	}
	b.WriteString("## The end\n\nfind the unicorn here\n")
	f := open(t, "big.md", []byte(b.String()), "text/markdown", "", 80, 20, false)
	md := f.m.body.(*markdown)
	if len(md.chunks) < 2 || md.known != len(md.chunks) {
		t.Fatalf("chunks %d laid out %d", len(md.chunks), md.known)
	}
	f.key("/")
	f.typeText("unicorn")
	f.key("enter")
	if !strings.Contains(f.frame(), "unicorn") {
		t.Fatal("search did not scroll to the match")
	}
	f.key("n")
	f.m.SetSize(50, 20)
	f.run(f.m.Reflow())
	if out := f.frame(); !strings.Contains(out, "lines") {
		t.Fatalf("after reflow:\n%s", out)
	}
}

func TestSlidesAndGrid(t *testing.T) {
	f := open(t, "deck.md", []byte("# A\n\n---\n\n# B\n\n---\n\n# C\n"), "text/markdown", "slides", 60, 12, false)
	f.key("right", "right", "right")
	if out := f.frame(); !strings.Contains(out, "slide 3 of 3") || !strings.Contains(out, "C") {
		t.Fatalf("slides:\n%s", out)
	}
	dir := t.TempDir()
	var sibs []runner.VerifiedArtifact
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("img%d.png", i))
		png := pngOf(t, 40+i*10, 30)
		os.WriteFile(p, png, 0o444)
		id := fmt.Sprintf("i%d", i)
		if i == 0 {
			id = "a1" // the artifact opened
		}
		sibs = append(sibs, runner.VerifiedArtifact{Artifact: modproto.Artifact{ID: id, Title: fmt.Sprintf("shot %d", i), MediaType: "image/png", Digest: modproto.Digest(png)}, Staged: p})
	}
	g := openPath(t, sibs[0].Staged, 0, "", "image/png", "image_grid", 80, 24, false, sibs)
	out := g.frame()
	for _, want := range []string{"shot 1", "shot 2", "50×30"} {
		if !strings.Contains(out, want) {
			t.Fatalf("grid lacks %q:\n%s", want, out)
		}
	}
	g.key("right", "enter")
	if out := g.frame(); !strings.Contains(out, "PNG · 50×30 pixels") {
		t.Fatalf("grid enter:\n%s", out)
	}
	if act := g.key("esc"); act != nil {
		t.Fatal("esc should close the image, not the viewer")
	}
}

func TestHostileArtifactsAreInert(t *testing.T) {
	evil := "\x1b]52;c;ZXZpbA==\x07\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\\x1b[2J\u009b31m\u202e"
	cases := []struct{ name, file, mt, src string }{
		{"markdown", "e.md", "text/markdown", "# T " + evil + "\n\npara " + evil + "\n\n| a |\n|---|\n| " + evil + " |\n"},
		{"csv", "e.csv", "text/csv", "a,b\n\"" + evil + "\",2\n"},
		{"json", "e.json", "application/json", `{"k\u001b[31m":"` + strings.ReplaceAll(evil, "\x1b", `\u001b`) + "\"}"},
		{"text", "e.txt", "text/plain", evil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, color := range []bool{false, true} {
				f := open(t, c.file, []byte(c.src), c.mt, "", 70, 14, color)
				f.key("enter", "down", "enter")
				out := f.frame()
				inert(t, out)
				if !strings.Contains(out, "␛") {
					t.Fatalf("escape not shown as ␛:\n%s", out)
				}
			}
		})
	}
	// The title and media type are module text too.
	f := open(t, "x\x1b[2J.txt", []byte("ok"), "text/plain\x1b]0;t\x07", "", 60, 8, true)
	inert(t, f.frame())
}

func TestPNGLyingAboutItsSize(t *testing.T) {
	// A valid PNG signature and IHDR claiming 100000×100000 pixels, then
	// nothing: decoding it would allocate 40 GB.
	src := pngOf(t, 2, 2)
	ihdr := src[16:24]
	copy(ihdr, []byte{0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0})
	binary.BigEndian.PutUint32(src[29:33], crc32.ChecksumIEEE(src[12:29]))
	f := open(t, "liar.png", src, "image/png", "", 60, 12, false)
	if f.m.Err() == nil || !strings.Contains(f.m.Err().Error(), "too large") {
		t.Fatalf("err = %v", f.m.Err())
	}
	if out := f.frame(); !strings.Contains(out, "image too large") {
		t.Fatalf("frame:\n%s", out)
	}
	// Truncated data under an honest small header fails cleanly too.
	f = open(t, "cut.png", pngOf(t, 8, 8)[:40], "image/png", "", 60, 12, false)
	if f.m.Err() == nil {
		t.Fatal("truncated PNG decoded")
	}
}

func TestHugeFileIsOfferedAsDownload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "huge.txt")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const size = 200 << 20 // sparse: no disk used
	if err := fh.Truncate(size); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	start := time.Now()
	for _, mt := range []string{"text/plain", "application/json", "text/csv", "text/markdown"} {
		f := openPath(t, path, size, "sha256:"+strings.Repeat("ab", 32), mt, "", 60, 14, false, nil)
		if out := f.frame(); !strings.Contains(out, "offered as a download") || !strings.Contains(out, "200.0 MiB") {
			t.Fatalf("%s:\n%s", mt, out)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v: the file was read", d)
	}
}

func TestOpenOnlyWithLocalDisplay(t *testing.T) {
	f := open(t, "a.txt", []byte("x"), "text/plain", "", 60, 8, false)
	f.key("o")
	if !strings.Contains(f.m.Note(), "No local display") {
		t.Fatalf("note %q", f.m.Note())
	}
	f.key("y")
	if len(f.clip) != 1 || !strings.HasSuffix(f.clip[0], "a.txt") {
		t.Fatalf("copy path: %q", f.clip)
	}
	if a, ok := f.key("s").(ActionAskSaveDir); !ok || a.Dir == "" {
		t.Fatal("s did not ask for a directory")
	}
	dir := t.TempDir()
	f.run(f.m.Save(dir))
	f.run(f.m.Save(dir))
	if !strings.Contains(f.m.Note(), "a-2.txt") {
		t.Fatalf("second save: %q", f.m.Note())
	}
}

// TestScreenshotFrames writes a colored 100×30 frame of every viewer into
// $MODBAY_SHOTS (skipped without it); screenshots/viewers.sh turns them into
// PNGs with freeze.
func TestScreenshotFrames(t *testing.T) {
	dir := os.Getenv("MODBAY_SHOTS")
	if dir == "" {
		t.Skip("MODBAY_SHOTS not set")
	}
	const w, h = 100, 30
	write := func(name string, f *fixture) {
		if err := os.WriteFile(filepath.Join(dir, "viewer-"+name+".ansi"), []byte(f.frame()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := open(t, "TEST.md", readCorpus(t, "markdown/markdown-test-file__TEST.md"), "text/markdown", "", w, h, true)
	f.key("pgdown")
	write("markdown", f)
	f = open(t, "country-codes.csv", readCorpus(t, "tables/datasets__country-codes.csv"), "text/csv", "", w, h, true)
	f.key("down", "down", "right", "S")
	write("table", f)
	f = open(t, "countries.json", readCorpus(t, "tables/mledoze__countries-unescaped.json"), "application/json", "", w, h, true)
	f.key("down", "enter", "down", "enter", "down", "down")
	write("json", f)
	var log strings.Builder
	for i := range 60 {
		fmt.Fprintf(&log, "2026-11-30T03:%02d:00Z\tINFO\tframe %d rendered in %d ms by worker-%d, cache hit ratio 0.%02d\n", i, i, 100+i*7, i%4, i)
	}
	f = open(t, "render.log", []byte(log.String()), "text/plain", "", w, h, true)
	write("text", f)
	var ev strings.Builder
	ev.WriteString(`{"title":"Render of intro","job_id":"job-7","started_at":"2026-11-30T03:00:00Z","unit":"ms","duration_ms":4200,"events":[`)
	for i := range 12 {
		if i > 0 {
			ev.WriteString(",")
		}
		state := "done"
		if i == 9 {
			state = "failed"
		}
		fmt.Fprintf(&ev, `{"label":"frame %d","start_ms":%d,"end_ms":%d,"state":%q}`, i+1, i*330, i*330+400+i*20, state)
	}
	ev.WriteString("]}")
	write("timeline", open(t, "timeline.json", []byte(ev.String()), "application/json", "timeline", w, h, true))
	write("diagram", open(t, "pipeline.mmd", []byte("flowchart LR\n  %% the render farm\n  A[Scene] -->|split| B(Frames)\n  B --> C{Worker pool}\n  C -->|ok| D[Encode]\n  C -.->|retry| B\n  D --> E[\"intro.mp4\"]\n  subgraph farm\n    C\n  end\n"), "text/vnd.mermaid", "", w, h, true))
	f = open(t, "deck.md", []byte("# modbay\n\nA cockpit for modules.\n\n---\n\n# Viewers\n\n- markdown, table, json, text\n- image, image grid\n- video, audio, document\n- diagram, slides, timeline, download\n\n---\n\n# Thanks\n"), "text/markdown", "slides", w, h, true)
	f.key("right")
	write("slides", f)
	write("image", open(t, "gradient.png", pngOf(t, 160, 90), "image/png", "", w, h, true))
	gdir := t.TempDir()
	var sibs []runner.VerifiedArtifact
	for i := range 6 {
		p := filepath.Join(gdir, fmt.Sprintf("shot%d.png", i))
		os.WriteFile(p, pngOf(t, 64+i*16, 48), 0o444)
		id := fmt.Sprintf("s%d", i)
		if i == 0 {
			id = "a1"
		}
		sibs = append(sibs, runner.VerifiedArtifact{Artifact: modproto.Artifact{ID: id, Title: fmt.Sprintf("frame %d", i+1), MediaType: "image/png"}, Staged: p})
	}
	g := openPath(t, sibs[0].Staged, 0, "", "image/png", "image_grid", w, h, true, sibs)
	g.key("right")
	write("image-grid", g)
	write("video", open(t, "intro.mp4", []byte("\x00\x00\x00\x18ftypmp42"), "video/mp4", "", w, h, true))
	write("document", open(t, "paper.pdf", []byte("%PDF-1.4\n1 0 obj << /Type /Pages /Count 12 >> endobj\n"), "application/pdf", "", w, h, true))
	write("download", open(t, "bundle.zip", []byte("PK\x03\x04rest"), "application/zip", "", w, h, true))
}

// TestSaveExpandsHomeAndAnchorsRelativePaths: "~/somewhere" goes under the
// home directory (not ./~/somewhere), a relative path under the workspace
// the prompt starts in (not the process's cwd), and the note shows the
// absolute path written.
func TestSaveExpandsHomeAndAnchorsRelativePaths(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cwd := t.TempDir()
	t.Chdir(cwd)
	f := open(t, "a.txt", []byte("x"), "text/plain", "", 60, 8, false)
	ws := f.m.SaveBase()
	act, ok := f.key("s").(ActionAskSaveDir)
	if !ok || act.Base != ws || act.Dir != ws {
		t.Fatalf("s asked %#v, want Dir and Base %q", act, ws)
	}
	f.run(f.m.Save("~/somewhere"))
	want := filepath.Join(home, "somewhere", "a.txt")
	if b, err := os.ReadFile(want); err != nil || string(b) != "x" {
		t.Fatalf("~/somewhere: %v (note %q)", err, f.m.Note())
	}
	if _, err := os.Stat(filepath.Join(cwd, "~")); err == nil {
		t.Fatal("created a directory named ~ in the cwd")
	}
	if f.m.Note() != "Saved a copy to "+want+" · y copies the path" {
		t.Fatalf("note %q, want the absolute path %s", f.m.Note(), want)
	}
	if f.m.SaveDir() != filepath.Join(home, "somewhere") {
		t.Fatalf("next prompt starts in %q", f.m.SaveDir())
	}
	f.run(f.m.Save("out/sub"))
	want = filepath.Join(ws, "out", "sub", "a.txt")
	if _, err := os.Stat(want); err != nil || !strings.Contains(f.m.Note(), want) {
		t.Fatalf("relative save: %v, note %q, want %s", err, f.m.Note(), want)
	}
	if _, err := os.Stat(filepath.Join(cwd, "out")); err == nil {
		t.Fatal("relative path resolved against the cwd")
	}
	f.run(f.m.Save("~bob/x"))
	if !strings.HasPrefix(f.m.Note(), "Not saved") || !strings.Contains(f.m.Note(), "only ~ and ~/") {
		t.Fatalf("~bob: note %q", f.m.Note())
	}
}

func TestResolveSaveDir(t *testing.T) {
	cases := []struct{ in, base, home, want, err string }{
		{"~", "/ws", "/home/u", "/home/u", ""},
		{"~/", "/ws", "/home/u", "/home/u", ""},
		{" ~/a/../b ", "/ws", "/home/u", "/home/u/b", ""},
		{"rel", "/ws", "/home/u", "/ws/rel", ""},
		{"./rel/", "/ws", "/home/u", "/ws/rel", ""},
		{"/abs/x", "/ws", "/home/u", "/abs/x", ""},
		{"a~b", "/ws", "/home/u", "/ws/a~b", ""},
		{"", "/ws", "/home/u", "", "no directory"},
		{"~x", "/ws", "/home/u", "", "only ~ and ~/"},
		{"~/x", "/ws", "", "", "no home"},
		{"rel", "", "/home/u", "", "no workspace"},
	}
	for _, c := range cases {
		got, err := ResolveSaveDir(c.in, c.base, c.home)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %q %v, want %q", c.in, got, err, c.want)
		}
	}
}

// rowLine returns the frame's line (styling stripped) that starts with
// prefix, or "".
func rowLine(frame, prefix string) string {
	for _, l := range strings.Split(ansi.Strip(frame), "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), prefix) { // numbers are right-aligned
			return l
		}
	}
	return ""
}

// TestTableWidthsFitTheRowsShown: columns are sized from the rows on
// screen too, not only the first rows: the last rows of a 100 000-row CSV
// and the rows left by a filter show whole, and so does a wide row deep in
// the middle once it scrolls into view.
func TestTableWidthsFitTheRowsShown(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,name,city\n")
	for i := range 100_000 {
		name := fmt.Sprintf("name%d", i)
		if i == 50_000 {
			name = "a much wider name in the middle of the file"
		}
		fmt.Fprintf(&b, "%d,%s,c\n", i, name)
	}
	f := open(t, "rows.csv", []byte(b.String()), "text/csv", "", 100, 14, false)
	f.key("G")
	if l := rowLine(f.frame(), "99999"); !strings.HasPrefix(l, "99999 │ name99999 ") {
		t.Fatalf("last row cut: %q", l)
	}
	f.key("g")
	for range 50_000 / f.m.body.(*table).rowsH() {
		f.key("pgdown")
	}
	if out := f.frame(); !strings.Contains(out, "a much wider name in the middle of the file") {
		t.Fatalf("middle row cut:\n%s", ansi.Strip(out))
	}
	f.key("g", "/")
	f.typeText("name4242")
	f.key("enter")
	out := f.frame()
	if n := len(f.m.body.(*table).order); n != 11 {
		t.Fatalf("filter kept %d rows, want 11", n)
	}
	for _, id := range []string{"4242", "42420", "42426"} {
		// Ids are numbers: right-aligned in their column.
		if l := rowLine(out, id+" "); !strings.HasPrefix(strings.TrimLeft(l, " "), id) || !strings.Contains(l, "name"+id+" ") {
			t.Fatalf("filtered row %s cut: %q\n%s", id, l, out)
		}
	}
}

// TestTableSpareWidthGoesToCutColumns: a long column is not held to the
// 40-cell cap while the screen has room for it.
func TestTableSpareWidthGoesToCutColumns(t *testing.T) {
	long := strings.Repeat("v", 70) + "END"
	src := fmt.Sprintf("{\"k\":1,\"v\":%q}\n{\"k\":2,\"v\":\"short\"}\n", long)
	f := open(t, "t.jsonl", []byte(src), "application/x-ndjson", "table", 100, 10, false)
	if _, ok := f.m.body.(*table); !ok {
		t.Fatalf("body %T", f.m.body)
	}
	if out := f.frame(); !strings.Contains(out, long) {
		t.Fatalf("v cut with room to spare:\n%s", ansi.Strip(out))
	}
	// Narrower than the cell: it is cut to the screen, not to 40 cells.
	f.m.SetSize(60, 10)
	l := rowLine(f.frame(), "1 ")
	if w := ansi.StringWidth(l); w != 60 || !strings.HasSuffix(l, "v…") {
		t.Fatalf("at 60 cells: %d wide %q", w, l)
	}
}

// TestTableSortIndicatorIsNeverCut: the sorted column's header keeps its
// ▲/▼ even when the name is wider than the column's cells.
func TestTableSortIndicatorIsNeverCut(t *testing.T) {
	f := open(t, "s.csv", []byte("n,a_rather_long_column_name_that_is_cut\n1,x\n2,y\n"), "text/csv", "", 60, 10, false)
	f.key("S")
	if l := rowLine(f.frame(), "n"); !strings.HasPrefix(l, "n ▲ │") {
		t.Fatalf("ascending header %q", l)
	}
	f.key("S")
	if l := rowLine(f.frame(), "n"); !strings.HasPrefix(l, "n ▼ │") {
		t.Fatalf("descending header %q", l)
	}
	f.key("right", "S")
	f.m.SetSize(20, 10)
	l := strings.Split(ansi.Strip(f.frame()), "\n")[headerLines]
	if !strings.HasSuffix(strings.TrimRight(l, " "), "▲") || ansi.StringWidth(l) > 20 {
		t.Fatalf("cut header lost its indicator: %q", l)
	}
}

// TestTreeShowsEscapesAsGlyphs: the JSON tree shows a decoded ESC as ␛ like
// the text viewers (not as \x1b), and the copied path is jq syntax that
// still selects the odd key.
func TestTreeShowsEscapesAsGlyphs(t *testing.T) {
	f := open(t, "e.json", []byte(`{"k\u001b[31m":"v\u001b[2J"}`), "application/json", "", 60, 10, false)
	f.key("down")
	out := f.frame()
	if !strings.Contains(out, `"k␛[31m": "v␛[2J"`) || strings.Contains(out, `\x1b`) {
		t.Fatalf("tree row:\n%s", out)
	}
	f.key("y")
	if len(f.clip) != 1 || f.clip[0] != `["k\u001b[31m"]` {
		t.Fatalf("copied %q", f.clip)
	}
}

// TestCopiedPathIsInert: a key holding raw C1 controls (which JSON allows
// unescaped) is copied as a jq path that escapes them, and the status line
// that confirms the copy draws nothing a terminal would act on.
func TestCopiedPathIsInert(t *testing.T) {
	f := open(t, "c1.json", []byte("{\"k\u009b2J\u202e\":1}"), "application/json", "", 60, 10, false)
	f.key("down", "y")
	if len(f.clip) != 1 || f.clip[0] != `["k\u009b2J\u202e"]` {
		t.Fatalf("copied %q", f.clip)
	}
	out := f.frame()
	inert(t, out)
	if !strings.Contains(out, "terminal's clipboard (OSC 52") {
		t.Fatalf("no copy status:\n%s", out)
	}
}

// TestMarkdownKeepsOnlyChunksNearTheScreen: a long document keeps styled
// lines only for the chunks near the screen; a chunk scrolled back into
// view is rendered again in a Cmd (not in Update), and search still finds
// text in chunks that are not held.
func TestMarkdownKeepsOnlyChunksNearTheScreen(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "## Section %d\n\nSome *text* for section %d with a [link](https://example.com/%d).\n\n", i, i, i)
	}
	b.WriteString("## The end\n\nfind the **unicorn** here\n")
	f := open(t, "long.md", []byte(b.String()), "text/markdown", "", 80, 20, false)
	md := f.m.body.(*markdown)
	if len(md.chunks) < 10 || md.known != len(md.chunks) {
		t.Fatalf("chunks %d laid out %d", len(md.chunks), md.known)
	}
	maxHeld := 2*markdownWindow + 2 // the chunks on screen and the window
	if md.held() > maxHeld {
		t.Fatalf("holds %d of %d chunks after the first pass", md.held(), len(md.chunks))
	}
	total := 0
	for c, n := range md.counts {
		total += n + md.sep(c)
	}
	if out := f.frame(); !strings.Contains(out, fmt.Sprintf("of %d lines", total)) || !strings.Contains(out, "Section 0") {
		t.Fatalf("first screen:\n%s", out)
	}
	f.key("G")
	if out := f.frame(); !strings.Contains(out, "unicorn") || md.lines[0] != nil || md.held() > maxHeld {
		t.Fatalf("after G: held %d, chunk 0 held %v:\n%s", md.held(), md.lines[0] != nil, out)
	}
	// Back to the top: Update only asks for the render; the Cmd does it.
	_, cmd := f.m.Update(uitest.Key("g"))
	if md.lines[0] != nil || cmd == nil {
		t.Fatal("chunk 0 rendered inside Update")
	}
	f.run(cmd)
	if out := f.frame(); md.lines[0] == nil || !strings.Contains(out, "Section 0") {
		t.Fatalf("chunk 0 not rendered again:\n%s", out)
	}
	f.key("/")
	f.typeText("section 2500 with")
	f.key("enter")
	out := f.frame()
	if !strings.Contains(out, "for section 2500 with a link") || !strings.Contains(md.status, "match 1/1") {
		t.Fatalf("search in a chunk not held (status %q):\n%s", md.status, out)
	}
	if md.held() > maxHeld+1 {
		t.Fatalf("holds %d chunks after a search", md.held())
	}
}

func TestSearchAgainReplacesThePreviousQuery(t *testing.T) {
	f := open(t, "a.md", []byte("# Title\n\nfind the unicorn here\n\nand the dragon there\n"), "text/markdown", "", 80, 20, false)
	md := f.m.body.(*markdown)
	f.key("/")
	f.typeText("unicorn")
	f.key("enter")
	f.key("/")
	if !strings.Contains(f.frame(), "/unicorn") {
		t.Fatalf("the prompt does not offer the previous query:\n%s", f.frame())
	}
	f.typeText("dragon")
	f.key("enter")
	if md.search.query != "dragon" || !strings.Contains(md.status, "match 1/1") {
		t.Fatalf("query %q status %q, want a new search for dragon", md.search.query, md.status)
	}
	// Enter at once searches the previous query again; an edit key keeps it.
	f.key("/", "enter")
	if md.search.query != "dragon" {
		t.Fatalf("enter on the offered query searched %q", md.search.query)
	}
	f.key("/", "left")
	f.typeText("s")
	f.key("enter")
	if md.search.query != "dragosn" {
		t.Fatalf("editing the offered query gave %q", md.search.query)
	}
}

func TestCountsAndPositionsRead(t *testing.T) {
	f := open(t, "d.json", []byte(`{"one":[1],"two":[1,2]}`), "application/json", "", 60, 14, false)
	f.key("e")
	out := f.frame()
	if strings.Contains(out, "1 items") || !strings.Contains(out, "1 item") || !strings.Contains(out, "2 items") {
		t.Fatalf("item counts:\n%s", out)
	}
	f = open(t, "a.txt", []byte("one\ntwo\nthree\n"), "text/plain", "", 60, 14, false)
	if out := f.frame(); !strings.Contains(out, "all 3 lines") {
		t.Fatalf("a short text's position says only:\n%s", out)
	}
}

// TestTamperedStagedFileIsNotVerified: bytes that no longer hash to the
// digest verified at staging are not shown and the header says so; the
// same file with its true digest says "verified ✓".
func TestTamperedStagedFileIsNotVerified(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.txt")
	honest, tampered := []byte("the real report\n"), []byte("THE FAKE REPORT\n")
	if err := os.WriteFile(path, tampered, 0o644); err != nil {
		t.Fatal(err)
	}
	f := openPath(t, path, int64(len(honest)), modproto.Digest(honest), "text/plain", "text", 80, 12, false, nil)
	if !errors.Is(f.m.Err(), ErrChanged) {
		t.Fatalf("err = %v, want ErrChanged", f.m.Err())
	}
	out := f.frame()
	if strings.Contains(out, "verified ✓") || strings.Contains(out, "FAKE") || !strings.Contains(out, "changed since it was verified") {
		t.Fatalf("a tampered file:\n%s", out)
	}
	f = openPath(t, path, int64(len(tampered)), modproto.Digest(tampered), "text/plain", "text", 80, 12, false, nil)
	if out := f.frame(); f.m.Err() != nil || !strings.Contains(out, "verified ✓") {
		t.Fatalf("an intact file (err %v):\n%s", f.m.Err(), out)
	}
}

// TestTableRightAlignsNumbers: a column of numbers is right-aligned (its
// digits line up), text stays left-aligned.
func TestTableRightAlignsNumbers(t *testing.T) {
	src := "name,qty\nbolt,9\nnut,100\nwasher,1.5\n"
	f := open(t, "t.csv", []byte(src), "text/csv", "", 60, 12, false)
	out := ansi.Strip(f.frame())
	for _, want := range []string{"bolt   │   9", "nut    │ 100", "washer │ 1.5"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestTreeExpandAllBound: expand all stops before the tree would show
// more than maxExpandAllRows rows and says how far it got of how many.
func TestTreeExpandAllBound(t *testing.T) {
	half := strings.TrimSuffix(strings.Repeat("0,", maxExpandAllRows*3/4), ",")
	src := `{"a":[` + half + `],"b":[` + half + `]}`
	f := open(t, "big.json", []byte(src), "application/json", "", 120, 10, false)
	tr := f.m.body.(*tree)
	f.key("e")
	want := fmt.Sprintf("expanded %d of %d nodes (the bound is %d rows)", 3+maxExpandAllRows*3/4, 3+2*(maxExpandAllRows*3/4), maxExpandAllRows)
	if len(tr.rows) > maxExpandAllRows || !strings.Contains(f.frame(), want) {
		t.Fatalf("expand all: %d rows, footer:\n%s\nwant %q", len(tr.rows), f.frame(), want)
	}
	// The rows of the root, open from the start, count toward the bound.
	many := strings.TrimSuffix(strings.Repeat("[0],", maxExpandAllRows*3/4), ",")
	f = open(t, "many.json", []byte("["+many+"]"), "application/json", "", 120, 10, false)
	tr = f.m.body.(*tree)
	f.key("e")
	if len(tr.rows) > maxExpandAllRows || !strings.Contains(f.frame(), "(the bound is") {
		t.Fatalf("expand all under an open root: %d rows, footer:\n%s", len(tr.rows), f.frame())
	}
}

// TestSourceViewRechecksTheFile: the text source view is read when v is
// first pressed, and bytes changed since the file was verified are not
// shown there either: the rendering stays and the header says so.
func TestSourceViewRechecksTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d.json")
	honest := []byte(`{"a":1}`)
	if err := os.WriteFile(path, honest, 0o644); err != nil {
		t.Fatal(err)
	}
	f := openPath(t, path, int64(len(honest)), modproto.Digest(honest), "application/json", "json", 80, 12, false, nil)
	if !strings.Contains(f.frame(), "verified ✓") {
		t.Fatalf("not verified at open:\n%s", f.frame())
	}
	if err := os.WriteFile(path, []byte(`{"a":2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	f.key("v")
	out := f.frame()
	if !errors.Is(f.m.Err(), ErrChanged) || strings.Contains(out, `{"a":2}`) || strings.Contains(out, "verified ✓") ||
		!strings.Contains(out, "changed since it was verified") || f.m.body != f.m.rendered {
		t.Fatalf("v on a changed file (err %v):\n%s", f.m.Err(), out)
	}
}

// runsDoc is prose, a small table with bold cells and a list.
const runsDoc = "# Runs this week\n\nThe cockpit ran these capabilities this week; the table below counts the runs of each " +
	"and says how the last one ended, so that a wrap of this paragraph at the width can be seen.\n\n" +
	"| capability | runs | last |\n|---|---:|---|\n| notes.report | **135** | ok |\n| web.fetch | 7 | *failed* |\n| farm.render | 12 | `cancelled` |\n\n" +
	"- **135** runs of notes.report\n- see `modbay history`\n"

// TestGoldenMarkdownTables: at 200 columns a small table is as wide as
// at 80 (its content), the prose wraps at the width, and under NoColor
// strong text is bold and emphasis underlined, never "**135**".
func TestGoldenMarkdownTables(t *testing.T) {
	for _, s := range []struct{ w, h int }{{80, 24}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", s.w, s.h), func(t *testing.T) {
			f := open(t, "runs.md", []byte(runsDoc), "text/markdown", "", s.w, s.h, false)
			out := f.frame()
			plain := ansi.Strip(out)
			if strings.Contains(plain, "**") || strings.Contains(plain, "*failed*") {
				t.Errorf("emphasis shown as markers:\n%s", plain)
			}
			if !strings.Contains(out, "\x1b[1m135") {
				t.Errorf("strong text is not bold:\n%q", out)
			}
			for _, l := range strings.Split(plain, "\n") {
				if strings.Contains(l, "notes.report") && strings.Contains(l, "|") && common.Width(strings.TrimRight(l, " ")) > 50 {
					t.Errorf("the table is stretched: %q", l)
				}
			}
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// TestOpenOverSSHOffersThePager: o with no local display names O when a
// pager can open a sanitized copy.
func TestOpenOverSSHOffersThePager(t *testing.T) {
	f := open(t, "a.txt", []byte("x"), "text/plain", "", 60, 8, false)
	f.m.env = Env{Pager: "less", TmpDir: t.TempDir()}
	f.key("o")
	if n := f.m.Note(); !strings.Contains(n, "s saves a copy") || !strings.Contains(n, "O opens it in less") {
		t.Fatalf("note %q", n)
	}
}

// TestBadImageSaysImageOnce: a file that is no image is "✗ image:
// unknown format", never "image: image: …".
func TestBadImageSaysImageOnce(t *testing.T) {
	f := open(t, "a.png", []byte("not an image at all"), "image/png", "", 60, 8, false)
	out := ansi.Strip(f.frame())
	if strings.Contains(out, "image: image:") || !strings.Contains(out, "image: unknown format") {
		t.Fatalf("frame:\n%s", out)
	}
}
