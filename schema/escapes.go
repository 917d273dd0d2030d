package schema

import (
	"bytes"
	"sort"
	"unicode/utf16"
	"unicode/utf8"

	"modbay/modproto"
)

// A module may escape a secret however JSON allows ("p\u00e4ss",
// Python's ensure_ascii; "\u0039" for "9"), so masking also searches a
// view of the bytes with every JSON escape decoded, and replaces the
// source bytes a match covers (docs/protocol.md §4). Bytes no secret
// touches stay as sent.

// escView is some bytes with their JSON escapes decoded: text, and the
// spans escapes took, in order.
type escView struct {
	text []byte
	esc  []escSpan
}

// escSpan is one escape: src bytes at src in the source became dec bytes
// at dec in text.
type escSpan struct{ src, srcLen, dec, decLen int }

// decodeEscapes decodes every complete JSON escape of b (\" \\ \/ \b \f
// \n \r \t and \uXXXX, a surrogate pair as one character); a malformed
// or lone-surrogate escape is kept as written. ok is false when b holds
// no escape (text is then b).
func decodeEscapes(b []byte) (v escView, ok bool) {
	i := bytes.IndexByte(b, '\\')
	if i < 0 {
		return escView{text: b}, false
	}
	v.text = make([]byte, 0, len(b))
	v.esc = make([]escSpan, 0, bytes.Count(b[i:], []byte{'\\'}))
	last := 0
	for i >= 0 && i < len(b) {
		r, n := escapeAt(b[i:])
		if n == 0 {
			i = nextBackslash(b, i+1)
			continue
		}
		v.text = append(v.text, b[last:i]...)
		d := len(v.text)
		v.text = utf8.AppendRune(v.text, r)
		v.esc = append(v.esc, escSpan{src: i, srcLen: n, dec: d, decLen: len(v.text) - d})
		i += n
		last = i
		i = nextBackslash(b, i)
	}
	v.text = append(v.text, b[last:]...)
	return v, len(v.esc) > 0
}

func nextBackslash(b []byte, from int) int {
	if from >= len(b) {
		return -1
	}
	j := bytes.IndexByte(b[from:], '\\')
	if j < 0 {
		return -1
	}
	return from + j
}

// escapeAt decodes the escape b begins with: its character and length,
// n 0 when b does not begin with a complete, well-formed escape.
func escapeAt(b []byte) (r rune, n int) {
	if len(b) < 2 || b[0] != '\\' {
		return 0, 0
	}
	switch b[1] {
	case '"', '\\', '/':
		return rune(b[1]), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
	default:
		return 0, 0
	}
	hi, ok := modproto.Hex4(b[2:])
	if !ok {
		return 0, 0
	}
	if !utf16.IsSurrogate(hi) {
		return hi, 6
	}
	if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
		return 0, 0
	}
	lo, ok := modproto.Hex4(b[8:])
	if !ok {
		return 0, 0
	}
	if r := utf16.DecodeRune(hi, lo); r != utf8.RuneError {
		return r, 12
	}
	return 0, 0
}

// srcStart is the source offset of text offset d as a match's start: an
// escape d falls inside starts at its backslash.
func (v escView) srcStart(d int) int {
	i := sort.Search(len(v.esc), func(i int) bool { return v.esc[i].dec+v.esc[i].decLen > d })
	if i < len(v.esc) && v.esc[i].dec <= d {
		return v.esc[i].src
	}
	return v.linear(i, d)
}

// srcEnd is the source offset of text offset d as a match's end: an
// escape d falls inside ends after its last byte.
func (v escView) srcEnd(d int) int {
	i := sort.Search(len(v.esc), func(i int) bool { return v.esc[i].dec+v.esc[i].decLen >= d })
	if i < len(v.esc) && v.esc[i].dec < d {
		return v.esc[i].src + v.esc[i].srcLen
	}
	return v.linear(i, d)
}

// linear maps d, which lies in the plain text after escape i-1.
func (v escView) linear(i, d int) int {
	if i == 0 {
		return d
	}
	e := v.esc[i-1]
	return e.src + e.srcLen + d - (e.dec + e.decLen)
}

// maxEscapeLevels is how many times escapes are decoded in turn: JSON
// text inside a JSON string ("\\u00e4"), quoted once more by a verdict.
const maxEscapeLevels = 3

// escapeLevels are b's decoded views: b's escapes decoded, then that
// text's, up to maxEscapeLevels, as far as escapes remain.
func escapeLevels(b []byte) []escView {
	var vs []escView
	for cur := b; len(vs) < maxEscapeLevels; {
		v, ok := decodeEscapes(cur)
		if !ok {
			break
		}
		vs, cur = append(vs, v), v.text
	}
	return vs
}

// maskEscaped replaces, in b, the source of every match of an echo's
// value in one of b's decoded views (escapeLevels) that an escape takes
// part in with its Label, longer echoes first (one never masks inside
// another's match); n is how many. b is decoded once per level whatever
// the number of echoes.
func maskEscaped(b []byte, echoes []Echo) ([]byte, int) {
	vs := escapeLevels(b)
	if len(vs) == 0 {
		return b, 0
	}
	type span struct {
		from, to int
		label    string
	}
	var spans []span
	taken := make([]uint64, len(b)/64+1) // source bytes inside a chosen span
	free := func(from, to int) bool {
		for i := from; i < to; i++ {
			if taken[i/64]&(1<<(i%64)) != 0 {
				return false
			}
		}
		return true
	}
	for _, e := range echoes {
		if e.Value == "" {
			continue
		}
		val := []byte(e.Value)
		for level, v := range vs {
			for off := 0; ; {
				j := bytes.Index(v.text[off:], val)
				if j < 0 {
					break
				}
				ds, de := off+j, off+j+len(val)
				off = de
				from, to := ds, de
				for k := level; k >= 0; k-- {
					from, to = vs[k].srcStart(from), vs[k].srcEnd(to)
				}
				if (to-from == de-ds && bytes.Equal(b[from:to], val)) || !free(from, to) {
					continue // as written (MaskEchoes' own pass), or inside a longer one
				}
				for i := from; i < to; i++ {
					taken[i/64] |= 1 << (i % 64)
				}
				spans = append(spans, span{from, to, e.Label()})
			}
		}
	}
	if len(spans) == 0 {
		return b, 0
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	out := make([]byte, 0, len(b))
	last := 0
	for _, s := range spans {
		out = append(out, b[last:s.from]...)
		out = append(out, s.label...)
		last = s.to
	}
	return append(out, b[last:]...), len(spans)
}

// escapedPrefixLen is the length of the longest end of b that, decoded,
// begins value without holding all of it, with any escape b ends inside
// (begun, not complete, whatever it would decode to): what a stream cut
// there may hold of a secret a module escaped.
func escapedPrefixLen(b []byte, value string) int {
	if len(value) == 0 {
		return 0
	}
	// An escape takes at most 12 bytes per character (a surrogate pair).
	tail := b[max(0, len(b)-12*utf8.RuneCountInString(value)-12):]
	open := openEscapeLen(tail)
	body := tail[:len(tail)-open]
	v, _ := decodeEscapes(body)
	held := open
	// A whole value was masked before this is asked: a proper prefix.
	if k := prefixAtEnd(v.text, []byte(value)); k > 0 {
		held += len(body) - v.srcStart(len(v.text)-k)
	}
	return held
}

// openEscapeLen is the length of the escape b ends inside (begun, not
// complete: "\", "\u00", a high surrogate "\uD83D\u"), the longest
// such end, 0 when none.
func openEscapeLen(b []byte) int {
	for n := min(11, len(b)); n >= 1; n-- {
		s := b[len(b)-n:]
		if s[0] != '\\' || (len(b) > n && b[len(b)-n-1] == '\\' && escapedBackslash(b[:len(b)-n])) {
			continue
		}
		if partialEscape(s) {
			return n
		}
	}
	return 0
}

// escapedBackslash says whether b ends with a backslash that is itself
// escaped data rather than an escape's start (an odd run ending b).
func escapedBackslash(b []byte) bool {
	run := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\\'; i-- {
		run++
	}
	return run%2 == 1
}

// partialEscape says whether s is a proper prefix of a well-formed
// escape.
func partialEscape(s []byte) bool {
	if len(s) == 1 {
		return true
	}
	if s[1] != 'u' {
		return false
	}
	for _, c := range s[2:min(len(s), 6)] {
		if !isHex(c) {
			return false
		}
	}
	if len(s) < 6 {
		return true
	}
	// Four hex digits: only a high surrogate goes on.
	hi, _ := modproto.Hex4(s[2:6])
	return 0xD800 <= hi && hi < 0xDC00 && partialLow(s[6:])
}

// partialLow says whether s (after a high surrogate) is a proper prefix
// of "\uXXXX".
func partialLow(s []byte) bool {
	if len(s) >= 6 {
		return false
	}
	for i, c := range s {
		switch {
		case i == 0 && c != '\\', i == 1 && c != 'u':
			return false
		case i >= 2 && !isHex(c):
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// cutMark is how the host marks a module's text it cut short.
const cutMark = "…"

// MaskCutEchoes is MaskEchoes for host text that quotes a module's bytes
// cut short with "…" (a verdict, a likely cause): beside each cut, the
// part of a secret it left is dropped too — an end that begins one
// before the mark (a closing quote between them skipped) and a start
// that ends one after it.
func MaskCutEchoes(s string, echoes []Echo) string {
	b, _ := MaskEchoes([]byte(s), echoes)
	if len(echoes) == 0 || !bytes.Contains(b, []byte(cutMark)) {
		return string(b)
	}
	var out []byte
	for {
		i := bytes.Index(b, []byte(cutMark))
		if i < 0 {
			return string(append(out, b...))
		}
		before := b[:i]
		q := 0
		if bytes.HasSuffix(before, []byte(`"`)) {
			q = 1
		}
		k := EchoPrefixLen(before[:len(before)-q], echoes)
		out = append(out, before[:len(before)-q-k]...)
		out = append(out, before[len(before)-q:]...)
		out = append(out, cutMark...)
		b = b[i+len(cutMark):]
		b = b[echoSuffixLen(b, echoes):]
	}
}

// echoSuffixLen is the length of the longest start of b that ends an
// echo's value (as MaskEchoes spells it) without holding all of it: what
// a cut before b may leave of a secret.
func echoSuffixLen(b []byte, echoes []Echo) int {
	best := 0
	for _, e := range echoes {
		for _, f := range echoForms(e.Value) {
			if len(f) < 2 {
				continue
			}
			head := reversed(b[:min(len(b), len(f)-1)])
			best = max(best, prefixAtEnd(head, reversed(f)))
		}
	}
	return best
}

func reversed(b []byte) []byte {
	r := make([]byte, len(b))
	for i, c := range b {
		r[len(b)-1-i] = c
	}
	return r
}
