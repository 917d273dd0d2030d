package schema

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// A secret that reads as a number ("48213", a writeOnly 12.75) may come
// back spelt otherwise: 4.8213e4 in a result or on stderr, or as a
// number the host keeps typed (a cost, a job's percent). A number equal
// in value to one, or holding one among its characters, is masked whole
// (docs/protocol.md §4).

// numberEchoes finds the echo a number spells.
type numberEchoes struct {
	echoes []Echo
	values map[float64]int // the first (longest) echo of each value that reads as a number
	many   *echoMatcher    // past manyEchoes: "holds among its characters" in one pass
}

// maskOpen begins every Label.
const maskOpen = "‹masked: "

// numberEchoesFor is echoes' index, kept with their matcher past
// manyEchoes (built once per set, not per string masked).
func numberEchoesFor(echoes []Echo) *numberEchoes {
	if len(echoes) <= manyEchoes {
		return newNumberEchoes(echoes)
	}
	m := matcherFor(echoes)
	m.numsOnce.Do(func() { m.nums = newNumberEchoes(echoes) })
	return m.nums
}

// newNumberEchoes indexes echoes; nil when none reads as a number (a
// number can then hold one only among its characters, which the plain
// search of its text finds).
func newNumberEchoes(echoes []Echo) *numberEchoes {
	var values map[float64]int
	for i, e := range echoes {
		if f, ok := echoNumber(e.Value); ok {
			if values == nil {
				values = map[float64]int{}
			}
			if _, dup := values[f]; !dup {
				values[f] = i
			}
		}
	}
	if values == nil {
		return nil
	}
	m := &numberEchoes{echoes: echoes, values: values}
	if len(echoes) > manyEchoes {
		m.many = matcherFor(echoes)
	}
	return m
}

// find is the echo the number spelt text holds: equal in value, or one
// of the echoes' values among its characters.
func (m *numberEchoes) find(text string) (Echo, bool) {
	if e, ok := m.byValue(text); ok {
		return e, true
	}
	return m.within(text)
}

// byValue is the echo equal in value (or sign flipped) to the number
// spelt text, when
// text has at least MinEchoLen characters: a shorter number ("0" for a
// PIN "0000") is too common to be taken for an echo.
func (m *numberEchoes) byValue(text string) (Echo, bool) {
	if m == nil || len(text) < MinEchoLen {
		return Echo{}, false
	}
	if f, ok := echoNumber(text); ok {
		if i, ok := m.values[f]; ok {
			return m.echoes[i], true
		}
		if i, ok := m.values[-f]; ok { // the sign flipped
			return m.echoes[i], true
		}
	}
	return Echo{}, false
}

// within is the longest echo whose value text holds.
func within(echoes []Echo, many *echoMatcher, text string) (Echo, bool) {
	if many != nil {
		best := -1
		for _, x := range many.values.find([]byte(text)) {
			if e := many.values.label[x.p]; best < 0 || len(echoes[e].Value) > len(echoes[best].Value) {
				best = e
			}
		}
		if best >= 0 {
			return echoes[best], true
		}
		return Echo{}, false
	}
	for _, e := range echoes { // longest first
		if e.Value != "" && strings.Contains(text, e.Value) {
			return e, true
		}
	}
	return Echo{}, false
}

func (m *numberEchoes) within(text string) (Echo, bool) { return within(m.echoes, m.many, text) }

// NumberEcho is the echo f holds, when it holds one, as a number
// written as Go writes f (strconv 'f' and 'g', shortest) holds it: equal
// in value, or among its characters. The host masks a number it keeps
// typed (a cost, a percent) with it.
func NumberEcho(f float64, echoes []Echo) (Echo, bool) {
	if len(echoes) == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return Echo{}, false
	}
	m := numberEchoesFor(echoes)
	var many *echoMatcher
	if len(echoes) > manyEchoes {
		many = matcherFor(echoes)
	}
	for _, text := range []string{strconv.FormatFloat(f, 'f', -1, 64), strconv.FormatFloat(f, 'g', -1, 64)} {
		if e, ok := m.byValue(text); ok {
			return e, true
		}
		if e, ok := within(echoes, many, text); ok {
			return e, true
		}
	}
	return Echo{}, false
}

// maskNumbers replaces every number written in b (a word of the JSON
// number grammar: -?digits[.digits][(e|E)[+|-]digits], no letter, digit,
// '.' or '_' either side, but a '.' that ends a sentence after it) equal in value to a numeric echo with its
// Label: what the plain search cannot find (4.8213e4 for "48213"). n is
// how many. Linear in len(b); b is returned unchanged when none matched.
func maskNumbers(b []byte, m *numberEchoes) ([]byte, int) {
	if m == nil {
		return b, 0
	}
	var out []byte
	last, n := 0, 0
	for i := 0; i < len(b); {
		c := b[i]
		if c == maskOpen[0] && bytes.HasPrefix(b[i:], []byte(maskOpen)) {
			// A label already there (its pointer may hold digits).
			if k := bytes.Index(b[i:], []byte("›")); k > 0 {
				i += k
				continue
			}
		}
		if !(c >= '0' && c <= '9' || c == '-' && i+1 < len(b) && b[i+1] >= '0' && b[i+1] <= '9') || i > 0 && wordByte(b[i-1]) {
			i++
			continue
		}
		j := numberEnd(b, i)
		if j < len(b) && wordByte(b[j]) && !(b[j] == '.' && (j+1 == len(b) || b[j+1] < '0' || b[j+1] > '9')) {
			for i = j; i < len(b) && wordByte(b[i]); i++ { // inside a word: skip it
			}
			continue
		}
		if e, ok := m.byValue(string(b[i:j])); ok {
			out = append(out, b[last:i]...)
			out = append(out, e.Label()...)
			last = j
			n++
		}
		i = j
	}
	if n == 0 {
		return b, 0
	}
	return append(out, b[last:]...), n
}

// numberEnd is the end of the number b[i:] begins with (b[i] a digit or
// '-' before one).
func numberEnd(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	digits := func() {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	digits()
	if i+1 < len(b) && b[i] == '.' && b[i+1] >= '0' && b[i+1] <= '9' {
		i++
		digits()
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		k := i + 1
		if k < len(b) && (b[k] == '+' || b[k] == '-') {
			k++
		}
		if k < len(b) && b[k] >= '0' && b[k] <= '9' {
			i = k
			digits()
		}
	}
	return i
}

// wordByte is a byte a number written alone does not touch.
func wordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.'
}
