package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

func TestJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"key order kept", `{"z":1,"a":2,"m":3}`, "{\n  \"z\": 1,\n  \"a\": 2,\n  \"m\": 3\n}"},
		{"number text kept", `[1.0, 1e400, 12345678901234567890123, -0.000e-0]`,
			"[\n  1.0,\n  1e400,\n  12345678901234567890123,\n  -0.000e-0\n]"},
		{"empty containers stay on one line", `{"a":{},"b":[]}`, "{\n  \"a\": {},\n  \"b\": []\n}"},
		{"nested", `{"a":[{"b":null,"c":true}]}`,
			"{\n  \"a\": [\n    {\n      \"b\": null,\n      \"c\": true\n    }\n  ]\n}"},
		{"duplicate keys kept", `{"a":1,"a":2}`, "{\n  \"a\": 1,\n  \"a\": 2\n}"},
		{"string escapes kept as written", `["\u001b[2J","\u00e9","\n"]`,
			"[\n  \"\\u001b[2J\",\n  \"\\u00e9\",\n  \"\\n\"\n]"},
		{"raw C1 in a string is neutralised", "[\"\u009b31m\"]", "[\n  \"␛[31m\"\n]"},
		{"invalid UTF-8 in a string is replaced", "[\"a\xffb\"]", "[\n  \"a\uFFFDb\"\n]"},
		{"bidi override replaced", "[\"\u202Eevil\"]", "[\n  \"\uFFFDevil\"\n]"},
		{"scalar", `  42  `, "42"},
		{"JSON Lines stream", "{\"a\":1}\n{\"a\":2}\n", "{\n  \"a\": 1\n}\n{\n  \"a\": 2\n}"},
		{"CRLF input", "{\r\n\"a\": 1\r\n}\r\n", "{\n  \"a\": 1\n}"},
		{"UTF-8 BOM skipped", "\xEF\xBB\xBF{\"a\":1}", "{\n  \"a\": 1\n}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JSON([]byte(tt.in), Options{Width: 80, NoColor: true})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("JSON(%q) =\n%s\nwant\n%s", tt.in, got, tt.want)
			}
			checkOutput(t, got, 80, true)
		})
	}
}

func TestJSONErrors(t *testing.T) {
	tests := []struct {
		name, in         string
		line, col        int
		offset           int64
		wantInBestEffort string
	}{
		{"bad token on line 3", "{\n  \"a\": 1,\n  \"b\": tru\n}", 3, 11, 22, `"b": tru`},
		{"truncated", "{\"a\": [1, 2", 1, 12, 11, `{"a": [1, 2`},
		{"trailing garbage", "{} x", 1, 4, 3, "{} x"},
		{"offset counts a BOM", "\xEF\xBB\xBF[1,]", 1, 7, 6, "[1,]"},
		{"escape in broken JSON is inert", "{\"a\": \x1b[2J}", 1, 7, 6, "␛[2J"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := JSON([]byte(tt.in), Options{Width: 80, NoColor: true})
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *SyntaxError", err)
			}
			if se.Line != tt.line || se.Col != tt.col || se.Offset != tt.offset {
				t.Errorf("position = line %d:%d byte %d, want %d:%d byte %d (%v)",
					se.Line, se.Col, se.Offset, tt.line, tt.col, tt.offset, err)
			}
			if !strings.Contains(err.Error(), "line ") || !strings.Contains(err.Error(), "byte ") {
				t.Errorf("error %q does not say where", err)
			}
			if !strings.Contains(got, tt.wantInBestEffort) {
				t.Errorf("best-effort output %q lacks %q", got, tt.wantInBestEffort)
			}
			checkOutput(t, got, 80, true)
		})
	}
	if _, err := JSON([]byte(" \n "), Options{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty input: err = %v, want ErrEmpty", err)
	}
}

func TestJSONWrap(t *testing.T) {
	long := strings.Repeat("abcdefghij", 12)
	src := []byte(`{"key":"` + long + `","n":1}`)
	for _, o := range []Options{{Width: 30, NoColor: true}, {Width: 30, Dark: true}} {
		out, err := JSON(src, o)
		if err != nil {
			t.Fatal(err)
		}
		checkOutput(t, out, 30, o.NoColor)
		if joined := strings.ReplaceAll(ansi.Strip(out), "\n", ""); !strings.Contains(joined, long) {
			t.Errorf("%+v: long string not kept whole across wrapped lines:\n%s", o, out)
		}
		if !o.NoColor {
			// Each wrapped piece carries its own color, so a line shown
			// alone (in a scrolled viewport) is still styled and reset.
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, "abcdefghij") && (!strings.HasPrefix(strings.TrimLeft(line, " "), "\x1b[") || !strings.Contains(line, "\x1b[m")) {
					t.Errorf("wrapped piece not styled on its own: %q", line)
				}
			}
		}
	}
}

func TestJSONColorGolden(t *testing.T) {
	src := []byte(`{"name":"modbay","version":2,"ratio":0.5,"big":12345678901234567890,` +
		`"ok":true,"off":false,"none":null,"tags":["a","b"],"empty":{},"esc":"\u001b[31m"}`)
	out, err := JSON(src, Options{Width: 80, Dark: true})
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, out, 80, false)
	golden.RequireEqual(t, []byte(out))
}

func TestJSONCorpus(t *testing.T) {
	for _, path := range corpusFiles(t, "tables") {
		if filepath.Ext(path) != ".json" {
			continue
		}
		src := readFile(t, path)
		for _, width := range sweepWidths {
			for _, o := range []Options{{Width: width, NoColor: true}, {Width: width, Dark: true}} {
				out, err := JSON(src, o)
				if err != nil {
					t.Fatalf("%s: %v", filepath.Base(path), err)
				}
				checkOutput(t, out, width, o.NoColor)
			}
		}
	}
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `"\u001b]52;c;ZXZpbA==\u0007"`, `[1e999]`, `{`, "", "[\"\u009b\"]"} {
		f.Add([]byte(s))
	}
	for _, path := range corpusSeeds(f, "tables") {
		if filepath.Ext(path) == ".json" {
			f.Add(readFile(f, path)[:fuzzSeedBytes])
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := JSON(src, Options{Width: 40, NoColor: true})
		checkOutput(t, out, 40, true)
		colored, _ := JSON(src, Options{Width: 40, Dark: true})
		if p := styledProblem(colored); p != "" {
			t.Fatalf("colored: %s", p)
		}
		if !json.Valid(src) {
			return
		}
		if err != nil {
			t.Fatalf("valid JSON %q: %v", src, err)
		}
		// With room for every line, the output is the same JSON: same
		// keys in the same order, same numbers, same string text.
		wide, _ := JSON(src, Options{Width: 1 << 20, NoColor: true})
		if Sanitize(string(src)) != string(src) {
			return
		}
		var a, b bytes.Buffer
		if json.Compact(&a, src) != nil || json.Compact(&b, []byte(wide)) != nil {
			t.Fatalf("output is not JSON: %q", wide)
		}
		if a.String() != b.String() {
			t.Fatalf("JSON changed:\n%s\n%s", a.String(), b.String())
		}
	})
}
