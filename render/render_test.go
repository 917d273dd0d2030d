package render

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestArtifact(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
	tests := []struct {
		name         string
		src          string
		meta         Meta
		wantContains []string
		wantAbsent   []string
		wantErr      bool
	}{
		{"markdown", "# Hello\n\n*world*", Meta{MediaType: "text/markdown"}, []string{"# Hello", "*world*"}, nil, false},
		{"json by media type", `{"b":1,"a":2}`, Meta{MediaType: "application/json"}, []string{"\"b\": 1,\n  \"a\": 2"}, nil, false},
		{"json when media type is empty", `[1]`, Meta{}, []string{"[\n  1\n]"}, nil, false},
		{"invalid json keeps best effort and errors", `{"a":`, Meta{MediaType: "application/json"}, []string{`{"a":`}, nil, true},
		{"table from csv", "a,b\n1,2\n", Meta{MediaType: "text/csv"}, []string{"│ a ", "│ 1 "}, nil, false},
		{"table hint on json", `[{"k":"v"}]`, Meta{MediaType: "application/json", Presentation: "table"}, []string{"│ k ", "│ v "}, nil, false},
		{"text", "plain\ttext", Meta{MediaType: "text/plain"}, []string{"plain   text"}, nil, false},
		{"binary text falls back to metadata", string(png), Meta{MediaType: "text/plain", Title: "t"}, []string{"not text", "Title"}, []string{"PNG"}, false},
		{"binary markdown falls back to metadata", string(png), Meta{MediaType: "text/markdown"}, []string{"not text"}, nil, false},
		{"broken image is metadata", string(png), Meta{MediaType: "image/png", Path: "a.png"}, []string{"Path", "a.png", "image", "cannot be shown", "save"}, []string{"PNG"}, true},
		{"unknown hint ignored", string(png), Meta{MediaType: "video/mp4", Presentation: "hologram"}, []string{"video"}, nil, false},
		{"download", "PK\x03\x04\x00\x00", Meta{MediaType: "application/zip"}, []string{"download"}, nil, false},
		{"mermaid diagram as source", "graph TD;\n  A-->B;", Meta{MediaType: "text/vnd.mermaid"}, []string{"1 graph TD;", "2   A-->B"}, nil, false},
		{"json timeline as json", `{"events":[1]}`, Meta{MediaType: "application/json", Presentation: "timeline"}, []string{"Not a timeline", "\"events\": ["}, nil, false},
		{"binary diagram is metadata", string(png), Meta{MediaType: "image/svg+xml"}, []string{"diagram", "save the artifact"}, nil, false},
		{"empty file", "", Meta{MediaType: "text/plain"}, []string{"empty"}, nil, false},
		{"hostile text", "\x1b]52;c;ZXZpbA==\x07", Meta{MediaType: "text/plain"}, []string{"␛]52;c;ZXZpbA==␇"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Artifact([]byte(tt.src), tt.meta, Options{Width: 60, NoColor: true})
			if (err != nil) != tt.wantErr {
				t.Errorf("err = %v, want error %v", err, tt.wantErr)
			}
			checkOutput(t, out, 60, true)
			for _, want := range tt.wantContains {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			for _, absent := range tt.wantAbsent {
				if strings.Contains(out, absent) {
					t.Errorf("output holds %q:\n%s", absent, out)
				}
			}
		})
	}
}

func TestArtifactCorpus(t *testing.T) {
	files := append(corpusFiles(t, "tables"), corpusFiles(t, "markdown")...)
	for _, path := range files {
		src := readFile(t, path)
		for _, mt := range []string{"text/plain", "application/json", "text/csv", "text/markdown"} {
			out, _ := Artifact(src, Meta{MediaType: mt}, Options{Width: 40, NoColor: true})
			checkOutput(t, out, 40, true)
		}
	}
}

func TestErrorsAreTyped(t *testing.T) {
	_, err := Artifact([]byte("{"), Meta{MediaType: "application/json"}, Options{})
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Errorf("err = %v, want *SyntaxError", err)
	}
}

func BenchmarkMarkdown1MB(b *testing.B) {
	section := "## Section %d\n\nSome *emphasis*, **strong** text, `code` and a [link](https://example.com/path).\n" +
		"A second sentence that is long enough to wrap at eighty columns, to exercise the word wrapper.\n\n" +
		"- item one\n- item two\n  - nested item\n\n" +
		"```go\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n```\n\n" +
		"| name | value |\n|------|-------|\n| a    | 1     |\n| b    | 2     |\n\n"
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, section, i) // distinct headings, as a real document has
	}
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Markdown(src, Options{Width: 80, Dark: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTable100kRows(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("id,name,city,amount,note\n")
	for i := range 100_000 {
		fmt.Fprintf(&sb, "%d,name %d,\"City, %d\",%d.%02d,\"a note\nwith a newline\"\n", i, i, i%97, i*7, i%100)
	}
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		out, err := Table(src, "text/csv", Options{Width: 120, Dark: true})
		if err != nil {
			b.Fatal(err)
		}
		if !strings.Contains(out, "showing 500 of 100000 rows") {
			b.Fatal("footer missing")
		}
	}
}

// TestArtifactRecoversARendererPanic: a renderer that panics on a file
// (a module's bytes) gives the metadata with a note naming the failure and
// an error wrapping ErrNotShown; the panic never reaches the caller, and
// its text is sanitized like any module string.
func TestArtifactRecoversARendererPanic(t *testing.T) {
	orig := renderArtifact
	t.Cleanup(func() { renderArtifact = orig })
	renderArtifact = func([]byte, string, Meta, Options) (string, error) {
		panic("index out of range \x1b]52;c;aGk=\x07")
	}
	var out string
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("the panic reached the caller: %q", r)
			}
		}()
		out, err = Artifact([]byte("# hi\n"), Meta{MediaType: "text/markdown", Bytes: 5}, Options{Width: 200})
	}()
	if !errors.Is(err, ErrNotShown) || !strings.Contains(err.Error(), "renderer failed") {
		t.Fatalf("error %v, want ErrNotShown naming the failure", err)
	}
	if !strings.Contains(out, "The renderer failed on this file (index out of range") || strings.Contains(out, "\x1b]52") {
		t.Fatalf("output:\n%q", out)
	}
}
