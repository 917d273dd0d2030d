package schema

import (
	"hash/maphash"
	"sort"
	"sync"
)

// An input with many secrets (thousands of writeOnly items) made
// masking cost secrets × bytes; past manyEchoes the values are searched
// at once (Aho–Corasick over bytes), in time linear in the bytes and the
// values' total length, the matcher kept for the next call with the same
// echoes (the runner masks every string and stderr chunk of a run with
// one set).

// manyEchoes is the number of echoes past which one matcher searches
// them all.
const manyEchoes = 16

// acMatcher finds every pattern in a text.
type acMatcher struct {
	next  map[uint64]int32 // node<<8 | byte → node
	fail  []int32
	end   []int32 // the pattern ending at a node itself, -1: none
	dict  []int32 // the nearest node down the fail links with a pattern, -1: none
	plen  []int
	label []int // the echo each pattern masks
}

func newACMatcher(patterns [][]byte, labels []int) *acMatcher {
	m := &acMatcher{next: map[uint64]int32{}, fail: []int32{0}, end: []int32{-1}, dict: []int32{-1}, label: labels}
	for i, p := range patterns {
		m.plen = append(m.plen, len(p))
		n := int32(0)
		for _, c := range p {
			k := uint64(n)<<8 | uint64(c)
			nx, ok := m.next[k]
			if !ok {
				nx = int32(len(m.fail))
				m.next[k] = nx
				m.fail, m.end, m.dict = append(m.fail, 0), append(m.end, -1), append(m.dict, -1)
			}
			n = nx
		}
		if len(p) > 0 && m.end[n] < 0 {
			m.end[n] = int32(i)
		}
	}
	// Fail links, breadth first: children of each node in the order
	// their edges are found.
	children := make([][]uint64, len(m.fail))
	for k, nx := range m.next {
		children[k>>8] = append(children[k>>8], uint64(nx)<<8|k&0xff)
	}
	queue := []int32{0}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, ch := range children[n] {
			child, c := int32(ch>>8), byte(ch)
			if n != 0 {
				f := m.fail[n]
				for {
					if nx, ok := m.next[uint64(f)<<8|uint64(c)]; ok {
						m.fail[child] = nx
						break
					}
					if f == 0 {
						break
					}
					f = m.fail[f]
				}
			}
			if f := m.fail[child]; m.end[f] >= 0 {
				m.dict[child] = f
			} else {
				m.dict[child] = m.dict[f]
			}
			queue = append(queue, child)
		}
	}
	return m
}

// acMatch is one match: text[end-n:end] is pattern p.
type acMatch struct{ end, n, p int }

// find returns every match in text: linear in text and the matches.
func (m *acMatcher) find(text []byte) []acMatch {
	var out []acMatch
	n := int32(0)
	for i, c := range text {
		for {
			if nx, ok := m.next[uint64(n)<<8|uint64(c)]; ok {
				n = nx
				break
			}
			if n == 0 {
				break
			}
			n = m.fail[n]
		}
		for d := n; d >= 0; d = m.dict[d] {
			if b := m.end[d]; b >= 0 {
				out = append(out, acMatch{end: i + 1, n: m.plen[b], p: int(b)})
			}
		}
	}
	return out
}

// echoMatchers caches the matchers of recent echo sets, by their values.
var echoMatchers = struct {
	sync.Mutex
	seed  maphash.Seed
	byKey map[uint64]*echoMatcher
	order []uint64
}{seed: maphash.MakeSeed(), byKey: map[uint64]*echoMatcher{}}

// echoMatcher searches one set of echoes: raw finds their spellings
// (echoForms) in bytes as written, values their values in a decoded view.
type echoMatcher struct {
	raw, values *acMatcher
	numsOnce    sync.Once
	nums        *numberEchoes // the numeric echoes' index (numberEchoesFor)
}

func matcherFor(echoes []Echo) *echoMatcher {
	var h maphash.Hash
	h.SetSeed(echoMatchers.seed)
	for _, e := range echoes {
		h.WriteString(e.Value)
		h.WriteByte(0)
		h.WriteString(e.Label())
		h.WriteByte(0)
	}
	key := h.Sum64()
	echoMatchers.Lock()
	defer echoMatchers.Unlock()
	if m, ok := echoMatchers.byKey[key]; ok {
		return m
	}
	var raw, values [][]byte
	var rawLabels, valueLabels []int
	for i, e := range echoes {
		for _, f := range echoForms(e.Value) {
			raw, rawLabels = append(raw, f), append(rawLabels, i)
		}
		values, valueLabels = append(values, []byte(e.Value)), append(valueLabels, i)
	}
	m := &echoMatcher{raw: newACMatcher(raw, rawLabels), values: newACMatcher(values, valueLabels)}
	if len(echoMatchers.order) >= 4 {
		delete(echoMatchers.byKey, echoMatchers.order[0])
		echoMatchers.order = echoMatchers.order[1:]
	}
	echoMatchers.byKey[key], echoMatchers.order = m, append(echoMatchers.order, key)
	return m
}

// maskSpan is source bytes [from, to) to replace with echo e's Label.
type maskSpan struct{ from, to, e int }

// chooseSpans keeps the longest candidates first, then the leftmost,
// none overlapping one kept.
func chooseSpans(cands []maskSpan, size int) []maskSpan {
	sort.SliceStable(cands, func(i, j int) bool {
		li, lj := cands[i].to-cands[i].from, cands[j].to-cands[j].from
		if li != lj {
			return li > lj
		}
		return cands[i].from < cands[j].from
	})
	taken := make([]uint64, size/64+1)
	var out []maskSpan
	for _, c := range cands {
		free := true
		for i := c.from; i < c.to && free; i++ {
			free = taken[i/64]&(1<<(i%64)) == 0
		}
		if !free {
			continue
		}
		for i := c.from; i < c.to; i++ {
			taken[i/64] |= 1 << (i % 64)
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].from < out[j].from })
	return out
}

// replaceSpans writes b with each span replaced by its echo's Label.
func replaceSpans(b []byte, spans []maskSpan, echoes []Echo) []byte {
	out := make([]byte, 0, len(b))
	last := 0
	for _, s := range spans {
		out = append(out, b[last:s.from]...)
		out = append(out, echoes[s.e].Label()...)
		last = s.to
	}
	return append(out, b[last:]...)
}

// maskMany is MaskEchoes for many echoes: their spellings as written,
// then their values in each decoded view, in one pass each.
func maskMany(b []byte, echoes []Echo) ([]byte, int) {
	b, n := maskManyText(b, echoes)
	b, d := maskNumbers(b, numberEchoesFor(echoes))
	return b, n + d
}

// maskManyText is maskMany less the numbers spelt otherwise.
func maskManyText(b []byte, echoes []Echo) ([]byte, int) {
	m := matcherFor(echoes)
	var cands []maskSpan
	for _, x := range m.raw.find(b) {
		cands = append(cands, maskSpan{x.end - x.n, x.end, m.raw.label[x.p]})
	}
	n := 0
	if len(cands) > 0 {
		spans := chooseSpans(cands, len(b))
		b, n = replaceSpans(b, spans, echoes), len(spans)
	}
	vs := escapeLevels(b)
	cands = cands[:0]
	for level, v := range vs {
		for _, x := range m.values.find(v.text) {
			from, to := x.end-x.n, x.end
			for k := level; k >= 0; k-- {
				from, to = vs[k].srcStart(from), vs[k].srcEnd(to)
			}
			if e := m.values.label[x.p]; to-from != x.n || string(b[from:to]) != echoes[e].Value {
				cands = append(cands, maskSpan{from, to, e})
			}
		}
	}
	if len(cands) == 0 {
		return b, n
	}
	spans := chooseSpans(cands, len(b))
	return replaceSpans(b, spans, echoes), n + len(spans)
}
