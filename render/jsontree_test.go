package render

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestJSONTreePaths(t *testing.T) {
	src := []byte(`{"a":{"b":[10,"x\"]",{"odd key":null}]},"z":true}`)
	roots, err := JSONRoots(src)
	if err != nil || len(roots) != 1 {
		t.Fatalf("roots %v %v", roots, err)
	}
	top, _ := JSONChildren(src, roots[0])
	a, _ := JSONChildren(src, top[0])
	b, _ := JSONChildren(src, a[0])
	if len(b) != 3 || JSONScalar(src, b[1]) != `"x\"]"` {
		t.Fatalf("b = %+v", b)
	}
	odd, _ := JSONChildren(src, b[2])
	path := JSONPathSegment(top[0]) + JSONPathSegment(a[0]) + JSONPathSegment(b[2]) + JSONPathSegment(odd[0])
	if path != `.a.b[2]["odd key"]` {
		t.Fatalf("path %q", path)
	}
}

// FuzzJSONTree walks every node of any valid JSON document: spans nest,
// nothing panics, and each node's text is valid JSON.
func FuzzJSONTree(f *testing.F) {
	for _, s := range []string{`{}`, `[1,[2,[3]]]`, `{"a":"\u001b[2J","b":[true,false,null,-1.5e3]}`, "\xEF\xBB\xBF[\"bom\"]", `{"k\"":{"":[]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		roots, err := JSONRoots(src)
		if err != nil {
			return
		}
		var walk func(n JSONNode, depth int)
		walk = func(n JSONNode, depth int) {
			if depth > 64 {
				return
			}
			if !json.Valid(src[n.Start:n.End]) && json.Valid(src) {
				t.Fatalf("node %+v is not valid JSON: %q", n, src[n.Start:n.End])
			}
			_ = JSONScalar(src, n)
			kids, err := JSONChildren(src, n)
			if err != nil {
				return
			}
			for _, k := range kids {
				if k.Start < n.Start || k.End > n.End {
					t.Fatalf("child %+v outside %+v", k, n)
				}
				walk(k, depth+1)
			}
		}
		if json.Valid(src) {
			for _, r := range roots {
				walk(r, 0)
			}
		}
	})
}

// FuzzTimeline parses any bytes as a timeline without panicking and renders
// what parsed within the width.
func FuzzTimeline(f *testing.F) {
	f.Add([]byte(`{"title":"t","unit":"ms","duration_ms":10,"events":[{"label":"a","start_ms":0,"end_ms":5,"state":"done"}]}`))
	f.Add([]byte(`[{"name":"x","time":"2026-01-01T00:00:00Z"},{"name":"y","start":"2026-01-01T00:00:01Z","end":"2026-01-01T00:00:03Z"}]`))
	f.Fuzz(func(t *testing.T, src []byte) {
		out, _ := Timeline(src, Options{Width: 40, NoColor: true})
		checkWidth(t, out, 40)
	})
}

// TestJSONTreeShowsControlsAsGlyphs: decoded strings and keys show control
// characters as Sanitize's glyphs (␛, ⏎), as every other viewer does, while
// a path stays jq syntax that selects the node.
func TestJSONTreeShowsControlsAsGlyphs(t *testing.T) {
	src := []byte(`{"k\u001b[31m":"a\u001b[2J\"q\"\\\nb\u0007\u009b1m","<ok>":"\t"}`)
	roots, _ := JSONRoots(src)
	kids, _ := JSONChildren(src, roots[0])
	if got, want := JSONScalar(src, kids[0]), `"a␛[2J\"q\"\\⏎b␇␛[1m"`; got != want {
		t.Fatalf("scalar %s, want %s", got, want)
	}
	if got, want := QuoteInert(kids[0].Key), `"k␛[31m"`; got != want {
		t.Fatalf("key %s, want %s", got, want)
	}
	if got, want := JSONPathSegment(kids[0]), `["k\u001b[31m"]`; got != want {
		t.Fatalf("path %s, want %s", got, want)
	}
	if got, want := JSONPathSegment(kids[1]), `["<ok>"]`; got != want {
		t.Fatalf("path %s, want %s", got, want)
	}
	// encoding/json leaves C1 (CSI), DEL and bidi overrides raw; the path
	// escapes them so a copied or shown path never acts on the terminal.
	raw := []byte("{\"a\u009b2J\u202e\x7f\":1}")
	rr, _ := JSONRoots(raw)
	rk, _ := JSONChildren(raw, rr[0])
	if got, want := JSONPathSegment(rk[0]), `["a\u009b2J\u202e\u007f"]`; got != want {
		t.Fatalf("path %s, want %s", got, want)
	}
	if got := JSONScalar(src, kids[1]); got != `" "` {
		t.Fatalf("tab shown as %s", got)
	}
}

// TestTimelineOffsetsAndZero: offsets read as time since the start ("+0s",
// "+400ms"), zero in any unit is "0s", never "0ms".
func TestTimelineOffsetsAndZero(t *testing.T) {
	src := []byte(`{"unit":"ms","events":[{"label":"a","start_ms":0,"end_ms":400},{"label":"b","start_ms":400,"end_ms":1900},{"label":"c","start_ms":1900,"end_ms":1900}]}`)
	out, err := Timeline(src, Options{Width: 60, NoColor: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"   +0s ● a", "+400ms ● b", "+1.9s ◆ c", "400ms", "1.5s"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(" "+out, " 0ms") {
		t.Errorf("zero offset in ms:\n%s", out)
	}
	for _, c := range []struct {
		d    float64
		unit string
		want string
	}{{0, "ms", "0s"}, {0, "s", "0s"}, {850, "ms", "850ms"}, {1.25, "s", "1.2s"}, {184, "s", "3m04s"}, {3, "", "3"}} {
		if got := FormatDuration(c.d, c.unit); got != c.want {
			t.Errorf("FormatDuration(%v, %q) = %q, want %q", c.d, c.unit, got, c.want)
		}
	}
}

// TestJSONCount: every value at every depth counts once, member names
// and strings that hold brackets or colons do not add any.
func TestJSONCount(t *testing.T) {
	for src, want := range map[string]int{
		`1`:                              1,
		`{}`:                             1,
		`{"a":1,"b":[true,null,-2.5e3]}`: 6,
		`{"k:":"v]","x" : {"y":"{"}}`:    4,
		"{\"a\":1}\n{\"a\":[\"s\"]}":     5,
	} {
		if got := JSONCount([]byte(src)); got != want {
			t.Errorf("JSONCount(%s) = %d, want %d", src, got, want)
		}
	}
}
