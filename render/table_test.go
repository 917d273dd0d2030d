package render

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

func TestParseTable(t *testing.T) {
	tests := []struct {
		name, src, mediaType string
		header               []string
		rows                 [][]string
		preamble             []string
		delim                rune
	}{
		{
			name: "plain csv", src: "a,b\n1,2\n3,4\n", mediaType: "text/csv",
			header: []string{"a", "b"}, rows: [][]string{{"1", "2"}, {"3", "4"}}, delim: ',',
		},
		{
			name: "BOM stripped", src: "\xEF\xBB\xBFname,n\nx,1\n", mediaType: "text/csv",
			header: []string{"name", "n"}, rows: [][]string{{"x", "1"}}, delim: ',',
		},
		{
			name: "quoted newline, delimiter and quote", src: "a,b\n\"line1\nline2\",\"x,\"\"y\"\"\"\n",
			mediaType: "text/csv", header: []string{"a", "b"}, rows: [][]string{{"line1\nline2", `x,"y"`}}, delim: ',',
		},
		{
			name: "CRLF line ends", src: "a,b\r\n1,2\r\n", mediaType: "text/csv",
			header: []string{"a", "b"}, rows: [][]string{{"1", "2"}}, delim: ',',
		},
		{
			name: "ragged rows padded and widened", src: "a,b,c\n1\n1,2,3\n1,2,3,4\n", mediaType: "text/csv",
			header: []string{"a", "b", "c", ""},
			rows:   [][]string{{"1", "", "", ""}, {"1", "2", "3", ""}, {"1", "2", "3", "4"}}, delim: ',',
		},
		{
			name: "semicolon sniffed", src: "a;b;c\n1,5;2;3\n4;5,5;6\n", mediaType: "text/csv",
			header: []string{"a", "b", "c"}, rows: [][]string{{"1,5", "2", "3"}, {"4", "5,5", "6"}}, delim: ';',
		},
		{
			name: "pipe sniffed", src: "a|b\n1|2\n", mediaType: "text/plain",
			header: []string{"a", "b"}, rows: [][]string{{"1", "2"}}, delim: '|',
		},
		{
			name: "tab sniffed", src: "a\tb, c\n1\t2\n", mediaType: "",
			header: []string{"a", "b, c"}, rows: [][]string{{"1", "2"}}, delim: '\t',
		},
		{
			name: "tsv media type forces tab", src: "a,b\tc\n1,2\t3\n", mediaType: "text/tab-separated-values",
			header: []string{"a,b", "c"}, rows: [][]string{{"1,2", "3"}}, delim: '\t',
		},
		{
			name: "preamble before header", mediaType: "text/csv",
			src:    "\"Data Source\",\"WDI\",\n\n\"Last Updated\",\"2015\",\n\n\"Country\",\"Code\",\"1960\",\"1961\",\n\"Aruba\",\"ABW\",\"1\",\"2\",\n\"Andorra\",\"AND\",,,\n",
			header: []string{"Country", "Code", "1960", "1961"}, preamble: []string{"Data Source, WDI", "Last Updated, 2015"},
			rows: [][]string{{"Aruba", "ABW", "1", "2"}, {"Andorra", "AND", "", ""}}, delim: ',',
		},
		{
			name: "json array of objects: union of keys in first-seen order", mediaType: "application/json",
			src:    `[{"b":1,"a":"x"},{"c":null,"a":"y"},{"d":{"n":[1, 2]},"b":12345678901234567890}]`,
			header: []string{"b", "a", "c", "d"},
			rows:   [][]string{{"1", "x", "", ""}, {"", "y", "null", ""}, {"12345678901234567890", "", "", `{"n":[1,2]}`}},
		},
		{
			name: "json sniffed without media type", src: ` [{"k":true}]`, mediaType: "",
			header: []string{"k"}, rows: [][]string{{"true"}},
		},
		{
			name: "json array of arrays with string header", src: `[["name","n"],["x",1],["y",2,3]]`, mediaType: "application/json",
			header: []string{"name", "n", "3"}, rows: [][]string{{"x", "1", ""}, {"y", "2", "3"}},
		},
		{
			name: "json array of scalars", src: `[1,"two",null]`, mediaType: "application/json",
			header: []string{"value"}, rows: [][]string{{"1"}, {"two"}, {"null"}},
		},
		{
			name: "json object is key/value", src: `{"z":1,"a":[true]}`, mediaType: "application/ld+json",
			header: []string{"key", "value"}, rows: [][]string{{"z", "1"}, {"a", "[true]"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			td, err := ParseTable([]byte(tt.src), tt.mediaType)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(td.Header, tt.header) {
				t.Errorf("header = %q, want %q", td.Header, tt.header)
			}
			if !reflect.DeepEqual(td.Rows, tt.rows) {
				t.Errorf("rows = %q, want %q", td.Rows, tt.rows)
			}
			if !reflect.DeepEqual(td.Preamble, tt.preamble) {
				t.Errorf("preamble = %q, want %q", td.Preamble, tt.preamble)
			}
			if td.Delimiter != tt.delim {
				t.Errorf("delimiter = %q, want %q", td.Delimiter, tt.delim)
			}
		})
	}
}

func TestParseTableErrors(t *testing.T) {
	t.Run("malformed csv line", func(t *testing.T) {
		src := "a,b\n1,2\n3,x\"y\n5,6\n"
		td, err := ParseTable([]byte(src), "text/csv")
		if err == nil || !strings.Contains(err.Error(), "line 3") {
			t.Fatalf("err = %v, want one naming line 3", err)
		}
		want := [][]string{{"1", "2"}, {"5", "6"}}
		if !reflect.DeepEqual(td.Rows, want) {
			t.Errorf("rows = %q, want what parsed: %q", td.Rows, want)
		}
		if td.Skipped != 1 || len(td.Warnings) != 1 || td.Warnings[0].Line != 3 {
			t.Errorf("skipped %d, warnings %v; want one at line 3", td.Skipped, td.Warnings)
		}
		if got := td.Warnings[0].String(); !strings.HasPrefix(got, "line 3: ") {
			t.Errorf("warning = %q", got)
		}
	})
	t.Run("warnings are capped", func(t *testing.T) {
		src := "a,b\n" + strings.Repeat("1,x\"y\n", maxParseWarnings+5)
		td, err := ParseTable([]byte(src), "text/csv")
		if err == nil || td.Skipped != maxParseWarnings+5 || len(td.Warnings) != maxParseWarnings {
			t.Errorf("err %v, skipped %d, %d warnings", err, td.Skipped, len(td.Warnings))
		}
	})
	t.Run("truncated json keeps parsed rows", func(t *testing.T) {
		td, err := ParseTable([]byte("[{\"a\":1},\n{\"a\":2},\n{\"a\":"), "application/json")
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != 3 {
			t.Fatalf("err = %v, want a *SyntaxError on line 3", err)
		}
		if want := [][]string{{"1"}, {"2"}}; !reflect.DeepEqual(td.Rows, want) {
			t.Errorf("rows = %q, want %q", td.Rows, want)
		}
	})
	t.Run("empty", func(t *testing.T) {
		if _, err := ParseTable([]byte("\xEF\xBB\xBF \n"), "text/csv"); !errors.Is(err, ErrEmpty) {
			t.Errorf("err = %v, want ErrEmpty", err)
		}
	})
}

func TestColumnWidths(t *testing.T) {
	tests := []struct {
		natural []int
		width   int
		want    []int
	}{
		{[]int{3, 5}, 80, []int{3, 5}},                                                     // fits as is
		{[]int{10, 100, 20}, 60, []int{10, 20, 20}},                                        // the long column gives way
		{[]int{10, 100, 10}, 40, []int{10, 10, 10}},                                        // down to the others' width
		{[]int{50, 50}, 40, []int{17, 16}},                                                 // shared evenly, remainder leftmost
		{[]int{1, 1, 1, 1, 1, 1, 1, 1}, 20, []int{1, 1, 1, 1}},                             // columns that no longer fit are dropped
		{[]int{30, 30, 30, 30, 30}, 20, []int{7, 6}},                                       // never fewer than minColumnCells each
		{[]int{30, 30, 30, 30, 30, 30, 30, 30, 30, 30}, 80, []int{11, 10, 10, 10, 10, 10}}, // floor 80/8 = 10
		{[]int{0}, 20, []int{1}},
	}
	for _, tt := range tests {
		got := columnWidths(tt.natural, tt.width)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("columnWidths(%v, %d) = %v, want %v", tt.natural, tt.width, got, tt.want)
		}
		total := 1
		for _, w := range got {
			total += w + 2*cellPadding + columnBorderCells
		}
		if total > tt.width {
			t.Errorf("columnWidths(%v, %d): table is %d cells wide", tt.natural, tt.width, total)
		}
	}
}

func TestTableRender(t *testing.T) {
	t.Run("newline and escapes in cells", func(t *testing.T) {
		src := "name,note\n\"two\nlines\",\"\x1b]52;c;ZXZpbA==\x07\"\n\x1b[2J,\u009b31m\n"
		for _, o := range []Options{{Width: 60, NoColor: true}, {Width: 60, Dark: true}} {
			out, err := Table([]byte(src), "text/csv", o)
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, out, 60, o.NoColor)
			for _, want := range []string{"two⏎lines", "␛]52;c;ZXZpbA==␇", "␛[2J", "␛[31m"} {
				if !strings.Contains(out, want) {
					t.Errorf("%+v: output lacks %q:\n%s", o, want, out)
				}
			}
		}
	})
	t.Run("row limit footer", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("id,v\n")
		for i := range MaxTableRows + 7 {
			fmt.Fprintf(&b, "%d,x\n", i)
		}
		out, err := Table([]byte(b.String()), "text/csv", Options{Width: 40, NoColor: true})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("showing %d of %d rows", MaxTableRows, MaxTableRows+7)
		if !strings.Contains(out, want) {
			t.Errorf("footer lacks %q", want)
		}
		if strings.Contains(out, fmt.Sprintf("│ %d ", MaxTableRows)) {
			t.Errorf("row %d was drawn", MaxTableRows)
		}
		if got := strings.Count(out, "\n"); got != MaxTableRows+5 {
			t.Errorf("%d lines, want %d rows + 3 border/header lines + header + footer", got, MaxTableRows)
		}
	})
	t.Run("column limit footer", func(t *testing.T) {
		header := make([]string, 30)
		for i := range header {
			header[i] = fmt.Sprintf("column%d", i)
		}
		src := strings.Join(header, ",") + "\n" + strings.Repeat("x,", 29) + "x\n"
		out, err := Table([]byte(src), "text/csv", Options{Width: 40, NoColor: true})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "showing 4 of 30 columns") {
			t.Errorf("footer missing:\n%s", out)
		}
		checkOutput(t, out, 40, true)
	})
	t.Run("malformed records are counted", func(t *testing.T) {
		out, err := Table([]byte("a,b\n1,2\n3,x\"y\n"), "text/csv", Options{Width: 40, NoColor: true})
		if err == nil {
			t.Fatal("no error for a malformed record")
		}
		if !strings.Contains(out, "1 malformed record skipped") || !strings.Contains(out, "│ 1 ") {
			t.Errorf("output:\n%s", out)
		}
	})
	t.Run("empty", func(t *testing.T) {
		out, err := Table(nil, "text/csv", Options{})
		if !errors.Is(err, ErrEmpty) || out != "(empty table)\n" {
			t.Errorf("Table(nil) = %q, %v", out, err)
		}
		for _, src := range []string{"[]", "[{}]", "[[],[]]"} {
			out, err := Table([]byte(src), "application/json", Options{})
			if err != nil || out != "(empty table)\n" {
				t.Errorf("Table(%s) = %q, %v", src, out, err)
			}
		}
	})
	t.Run("header colored unless NoColor", func(t *testing.T) {
		plain, _ := Table([]byte("a,b\n1,2\n"), "text/csv", Options{NoColor: true})
		colored, _ := Table([]byte("a,b\n1,2\n"), "text/csv", Options{Dark: true})
		if strings.Contains(plain, "\x1b") || !strings.Contains(colored, "\x1b[") {
			t.Errorf("plain %q\ncolored %q", plain, colored)
		}
	})
}

func TestTableGolden(t *testing.T) {
	for _, tt := range []struct{ name, mediaType string }{
		{"worldbank__sp.dyn.cbrt.in_Indicator_en_csv_v2.csv", "text/csv"},
		{"awesome-chatgpt-prompts__prompts.csv", "text/csv; charset=utf-8"},
		{"gemoji__emoji.json", "application/json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Table(readCorpus(t, filepath.Join("tables", tt.name)), tt.mediaType, Options{Width: 80, NoColor: true})
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, out, 80, true)
			golden.RequireEqual(t, []byte(out))
		})
	}
}

func TestTableCorpus(t *testing.T) {
	for _, path := range corpusFiles(t, "tables") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			src := readFile(t, path)
			mt := "text/csv"
			if filepath.Ext(path) == ".json" {
				mt = "application/json"
			}
			td, err := ParseTable(src, mt)
			if err != nil {
				t.Fatalf("ParseTable: %v", err)
			}
			if len(td.Rows) < 100 || len(td.Header) < 2 {
				t.Errorf("parsed only %d rows of %d columns", len(td.Rows), len(td.Header))
			}
			for i, row := range td.Rows {
				if len(row) != len(td.Header) {
					t.Fatalf("row %d has %d cells, header %d", i, len(row), len(td.Header))
				}
			}
			for _, width := range sweepWidths {
				for _, o := range []Options{{Width: width, NoColor: true}, {Width: width, Dark: true}} {
					out, err := Table(src, mt, o)
					if err != nil {
						t.Errorf("%+v: %v", o, err)
					}
					checkOutput(t, out, width, o.NoColor)
				}
			}
		})
	}
}

func TestWorldBankHeader(t *testing.T) {
	td, err := ParseTable(readCorpus(t, "tables/worldbank__sp.dyn.cbrt.in_Indicator_en_csv_v2.csv"), "text/csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(td.Preamble) != 2 || !strings.HasPrefix(td.Preamble[0], "Data Source") {
		t.Errorf("preamble = %q", td.Preamble)
	}
	if td.Header[0] != "Country Name" || td.Header[len(td.Header)-1] != "2014" {
		t.Errorf("header = %q…%q; the empty trailing column should be gone", td.Header[0], td.Header[len(td.Header)-1])
	}
	if td.Rows[0][0] != "Aruba" {
		t.Errorf("first row = %q", td.Rows[0][:2])
	}
}

func FuzzTable(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "a;b\n\"x\ny\";2\n", "[{\"a\":1}]", "\"", "\xEF\xBB\xBF", "a\tb\n\x1b[2J\t\u009b\n"} {
		f.Add([]byte(s), "text/csv")
	}
	for _, path := range corpusSeeds(f, "tables") {
		src := readFile(f, path)
		f.Add(src[:min(len(src), fuzzSeedBytes)], "")
	}
	f.Fuzz(func(t *testing.T, src []byte, mediaType string) {
		td, _ := ParseTable(src, mediaType)
		for i, row := range td.Rows {
			if len(row) != len(td.Header) {
				t.Fatalf("row %d has %d cells, header %d", i, len(row), len(td.Header))
			}
		}
		out, _ := Table(src, mediaType, Options{Width: 30, NoColor: true})
		checkOutput(t, out, 30, true)
		colored, _ := Table(src, mediaType, Options{Width: 30, Dark: true})
		checkOutput(t, colored, 30, false)
	})
}

// TestParseTSVHasNoQuoting: text/tab-separated-values has no quoting, so a
// '"' inside a field is an ordinary character and no record is lost.
func TestParseTSVHasNoQuoting(t *testing.T) {
	td, err := ParseTable([]byte("a\tb\n\"x\ty\n1\t\"2\"\n"), "text/tab-separated-values")
	if err != nil {
		t.Fatal(err)
	}
	if len(td.Rows) != 2 || td.Rows[0][0] != `"x` || td.Rows[1][1] != `"2"` {
		t.Fatalf("rows %q", td.Rows)
	}
	// A provenance list whose notes hold stray and doubled quotes, one
	// opening a field and never closed: every line is one record.
	src := readFile(t, filepath.Join("testdata", "provenance-quotes.tsv"))
	td, err = ParseTable(src, "text/tab-separated-values; charset=utf-8")
	if err != nil || td.Skipped != 0 {
		t.Fatalf("provenance-quotes.tsv: %v, %d skipped", err, td.Skipped)
	}
	lines := bytes.Count(bytes.TrimSpace(src), []byte("\n"))
	if len(td.Rows) != lines || bytes.Count(src, []byte(`"`)) < 6 {
		t.Fatalf("provenance-quotes.tsv: %d rows, want %d", len(td.Rows), lines)
	}
}
