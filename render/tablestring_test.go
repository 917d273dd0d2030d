package render

import (
	"reflect"
	"testing"
)

// tableStringSeeds are inputs where the in-place path and encoding/csv
// could part: quotes at every position, empty lines and fields, a record
// at the end without a newline, the delimiters ParseTable sniffs.
var tableStringSeeds = []string{
	"a,b\n1,2\n", "a,b\n1,2", "a,b,\n1,2,\n", "\n\na,b\n\n1,2\n\n", "a;b\n\"x\ny\";2\n",
	"a,b\n\"x\"\"y\",\"\"\n", "a,b\n\"open,1\n", "a,b\nx\"y,2\n", "a,b\n\"x\"y,2\n", "a,b\n\"x\"",
	"a\tb\n1\t\"2\"\n", "a|b|c\n1|2|3\n", "h\n\"\"\"\"\n", "a,b\r\n1,2\r\n", "\xEF\xBB\xBFa,b\n1,2\n",
	"x,y\n\"\xff\",\xfe\n", "a,b\r\n\r\n1,\"x\r\ny\"\r\n2,3\r", "a,b\r\n1,\"q\"\r", "a\r,b\n\rx,y\n\r", "a,b\n1,\"x\"\"\r\n\"\r\n", "a,b\n\"x\"\ry\n", "id,note\n1,\"a note\nwith a newline\"\n2,\"b\"\n", "[1,2]", "{\"a\":1}\n{\"a\":2}\n", "",
}

// TestParseTableStringAgrees: ParseTableString reads every seed as
// ParseTable does, with the media types that pick each path.
func TestParseTableStringAgrees(t *testing.T) {
	for _, s := range tableStringSeeds {
		for _, mt := range []string{"", "text/csv", "text/tab-separated-values", "application/json"} {
			agree(t, []byte(s), mt)
		}
	}
	// The in-place path is the one taken for a plain CSV, quoted newlines
	// and escaped quotes included.
	for _, s := range []string{"id,note\n1,\"a note\nwith a newline\"\n2,\"say \"\"hi\"\"\"\n", "id,note\r\n1,\"x\r\ny\"\r\n"} {
		if _, ok := parseDelimited(s, "text/csv"); !ok {
			t.Errorf("%q did not take the in-place path", s)
		}
	}
}

// agree fails unless ParseTableString(src) equals ParseTable(src).
func agree(t *testing.T, src []byte, mt string) {
	t.Helper()
	want, werr := ParseTable(src, mt)
	got, gerr := ParseTableString(string(src), mt)
	got = materialize(got)
	if !reflect.DeepEqual(got, want) || (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("%q as %q:\nParseTableString %+v, %v\nParseTable       %+v, %v", src, mt, got, gerr, want, werr)
	}
}

func FuzzTableString(f *testing.F) {
	for _, s := range tableStringSeeds {
		f.Add([]byte(s), "text/csv")
		f.Add([]byte(s), "")
	}
	for _, path := range corpusSeeds(f, "tables") {
		src := readFile(f, path)
		f.Add(src[:min(len(src), fuzzSeedBytes)], "")
	}
	f.Fuzz(func(t *testing.T, src []byte, mediaType string) { agree(t, src, mediaType) })
}

// materialize is td with its rows in Rows, as ParseTable returns them.
func materialize(td *TableData) *TableData {
	if td.lazy == nil {
		return td
	}
	c := *td
	c.lazy = nil
	c.Rows = make([][]string, 0, td.Len())
	for i := range td.Len() {
		c.Rows = append(c.Rows, td.Row(i))
	}
	return &c
}
