package schema

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// manyTestEchoes are n secrets, longest first as Echoes orders them.
func manyTestEchoes(n int) []Echo {
	var out []Echo
	for i := n - 1; i >= 0; i-- {
		out = append(out, Echo{Pointer: fmt.Sprintf("/k/%d", i), Why: "writeOnly", Value: fmt.Sprintf("sk-%dé", i*7919)})
	}
	sortEchoes(out)
	return out
}

// TestMaskManyLikeFew: past manyEchoes the one-matcher search masks
// what searching each echo in turn masks: spellings as written, escaped
// and JSON text in a string, a secret inside a longer one's match.
func TestMaskManyLikeFew(t *testing.T) {
	echoes := manyTestEchoes(200)
	text := []byte(`{"a":"sk-0\u00e9 and sk-7919é","b":"{\"x\":\"sk-15838\\u00e9\"}","c":"sk-79190é sk-1583800é"} stderr sk-2375\u0037é`)
	few, nf := MaskEchoes(text, echoes[:manyEchoes])
	_ = few
	many, nm := MaskEchoes(text, echoes)
	var slow []byte = text
	ns := 0
	for _, e := range echoes { // one at a time: the simple path
		var c int
		slow, c = MaskEchoes(slow, []Echo{e})
		ns += c
	}
	if !bytes.Equal(many, slow) || nm != ns {
		t.Fatalf("many (%d):\n%s\none by one (%d):\n%s", nm, many, ns, slow)
	}
	if strings.Count(string(many), "sk-") != 1 || nm != 5 || nf > nm { // sk-1583800é is no secret
		t.Fatalf("left a secret or masked too few (%d): %s", nm, many)
	}
}

// BenchmarkMaskManyEchoes: 20,000 secrets against 900 KB of near misses
// (an input a script filled; it took ~16 s searched one by one).
func BenchmarkMaskManyEchoes(b *testing.B) {
	echoes := manyTestEchoes(20000)
	text := bytes.Repeat([]byte(`sk-123 \u00e9 sk-99 `), 900<<10/20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	MaskEchoes(text, echoes) // the matcher built once
	for b.Loop() {
		MaskEchoes(text, echoes)
	}
}
