package viewer

import (
	"os"
	"strings"
	"testing"
)

// TestSourceView: v toggles every viewer between its rendering and the
// file's own text; a binary file's source says what it is, in hex.
func TestSourceView(t *testing.T) {
	md := "# Title\n\n**bold** and `&gt;` and __init__\n"
	f := open(t, "r.md", []byte(md), "text/markdown", "markdown", 80, 20, false)
	if strings.Contains(f.frame(), "__init__") {
		t.Fatalf("the rendering shows the source already:\n%s", f.frame())
	}
	f.key("v")
	fr := f.frame()
	for _, want := range []string{"1 # Title", "3 **bold** and `&gt;` and __init__"} {
		if !strings.Contains(fr, want) {
			t.Errorf("source view lacks %q:\n%s", want, fr)
		}
	}
	f.key("v")
	if strings.Contains(f.frame(), "__init__") {
		t.Errorf("v again does not return to the rendering:\n%s", f.frame())
	}

	js := `{"z":1,"a":"x & <y>"}`
	f = open(t, "r.json", []byte(js), "application/json", "json", 80, 20, false)
	f.key("v")
	if !strings.Contains(f.frame(), `1 {"z":1,"a":"x & <y>"}`) {
		t.Errorf("JSON source view:\n%s", f.frame())
	}

	png, err := os.ReadFile("../../render/testdata/badcrc.png")
	if err != nil {
		t.Fatal(err)
	}
	f = open(t, "i.png", png, "image/png", "image", 100, 20, false)
	f.key("v")
	fr = f.frame()
	for _, want := range []string{"Type:   image/png", "Digest: sha256:", "00000000  89 50 4e 47"} {
		if !strings.Contains(fr, want) {
			t.Errorf("image source view lacks %q:\n%s", want, fr)
		}
	}
}

// TestTableAmbiguousTSV: a TSV with a quoted cell spanning lines says so
// and C reads it as CSV (and back).
func TestTableAmbiguousTSV(t *testing.T) {
	src, err := os.ReadFile("../../render/testdata/fidelity/multiline.tsv")
	if err != nil {
		t.Fatal(err)
	}
	f := open(t, "m.tsv", src, "text/tab-separated-values", "table", 100, 20, false)
	tb := f.m.body.(*table)
	if tb.td.Len() != 3 || !strings.Contains(f.m.Note(), "Ambiguous quoting") || !strings.Contains(f.frame(), "C: read as CSV") {
		t.Fatalf("TSV: %d rows, note %q:\n%s", tb.td.Len(), f.m.Note(), f.frame())
	}
	f.key("C")
	if tb := f.m.body.(*table); tb.td.Len() != 2 || tb.td.Row(0)[1] != "first line\nsecond line" || !strings.Contains(f.frame(), "read as CSV") {
		t.Fatalf("as CSV: %d rows:\n%s", tb.td.Len(), f.frame())
	}
	f.key("C")
	if tb := f.m.body.(*table); tb.td.Len() != 3 {
		t.Errorf("back as TSV: %d rows", tb.td.Len())
	}
}

// TestPlainTextAsMarkdown: plain text (an MCP tool's text) is shown as
// sent; m renders it as markdown, and m again goes back.
func TestPlainTextAsMarkdown(t *testing.T) {
	src := []byte("[FILE] a.txt\n[FILE] b.png\nkey: value\n__init__\n")
	f := open(t, "c.txt", src, "text/plain", "", 80, 20, false)
	if fr := f.frame(); !strings.Contains(fr, "[FILE] a.txt") || !strings.Contains(fr, "__init__") || !strings.Contains(fr, "[FILE] b.png") {
		t.Fatalf("plain text not as sent:\n%s", fr)
	}
	f.key("m")
	if fr := f.frame(); strings.Contains(fr, "__init__") || !strings.Contains(fr, "\x1b[1minit") {
		t.Errorf("m does not render markdown:\n%s", fr)
	}
	f.key("m")
	if fr := f.frame(); !strings.Contains(fr, "__init__") {
		t.Errorf("m again does not return to the text:\n%s", fr)
	}
}
