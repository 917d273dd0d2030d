package modproto

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is the decoders' one pass over a module's JSON: a scanner that
// checks the syntax exactly as encoding/json does (json.Valid accepts what
// it accepts), the duplicate and case-variant keys (keys.go's rules) and
// the nesting bound at once, in time and memory linear in the input, and
// stops when its context ends. The helpers below it read a document the
// scanner accepted: skip a value, iterate an object's members.

// stdMaxDepth is encoding/json's nesting limit: deeper is its syntax error
// ("exceeded max depth"), which the scanner reports as a syntax error too.
const stdMaxDepth = 10000

// scanCheckEvery is how many bytes the scanner reads between two looks at
// its context: about 0.1 ms of scanning, so a cancel is seen at once.
const scanCheckEvery = 64 << 10

// smallObjectKeys is how many keys an object's duplicate check compares
// one by one before it indexes them in a map.
const smallObjectKeys = 16

// errSyntax marks a document the scanner refused; the caller asks
// encoding/json for its own words (the error a person has always seen).
var errSyntax = errors.New("not valid JSON")

// keyFrame is one open object or array of the key check.
type keyFrame struct {
	object bool
	opaque bool
	// path is the frame's path when it may still lead to an opaque rule
	// ("error" for "error.details"); prefix says so.
	path   string
	prefix bool
	index  int // arrays: the index of the element being read
	// first is the index in scanner.keys of the frame's first key; cur
	// that of the key whose value is being read.
	first, cur int
	arena      int       // scanner.arena's length when the frame opened
	set        *keyIndex // past smallObjectKeys: the keys, hashed
}

// keySeed hashes the keys of large objects.
var keySeed = maphash.MakeSeed()

// keyIndex is an open-addressing set of one object's keys: each slot is
// an index into scanner.keys plus one (0: empty), hashed on the key's
// folded form (opaque: as spelt). It holds no copy of a key.
type keyIndex struct {
	slots []int32
	n     int
}

// keyEntry locates one key in scanner.arena: its spelling as decoded and,
// outside opaque values, its folded form.
type keyEntry struct{ e0, e1, f0, f1 int }

// scanner reads one JSON value from data.
type scanner struct {
	data []byte
	pos  int
	ctx  context.Context
	next int // pos at which ctx is looked at next
	err  error
	// Key check (rules non-nil): the first finding, in document order.
	rules  *keyRules
	keyErr error
	frames []keyFrame
	keys   []keyEntry
	arena  []byte
}

// scanValue reads the JSON value at data[i:] (after white space) and
// returns the offset just past it. err is errSyntax, ctx's error, or nil;
// keyErr, when rules is non-nil, is the first duplicate key or nesting
// past MaxKeyDepth (a *DuplicateKeyError or an error), found while the
// syntax was still good.
func scanValue(ctx context.Context, data []byte, i int, rules *keyRules) (end int, keyErr, err error) {
	s := &scanner{data: data, pos: i, ctx: ctx, next: i + scanCheckEvery, rules: rules}
	s.run()
	return s.pos, s.keyErr, s.err
}

// isSpace is JSON white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) && isSpace(s.data[s.pos]) {
		s.pos++
	}
}

// fail records a syntax error at the current byte.
func (s *scanner) fail() { s.err = errSyntax }

// tick looks at the context every scanCheckEvery bytes.
func (s *scanner) tick() bool {
	if s.pos < s.next || s.ctx == nil {
		return true
	}
	s.next = s.pos + scanCheckEvery
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return false
	}
	return true
}

// run is the scanner's loop: an explicit stack of open containers, so
// nesting costs no Go stack.
func (s *scanner) run() {
	var stack []byte // '{' or '['
	for {
		// A value starts here.
		if !s.tick() {
			return
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			s.fail()
			return
		}
		switch c := s.data[s.pos]; {
		case c == '{' || c == '[':
			if len(stack) >= stdMaxDepth {
				s.fail()
				return
			}
			s.open(c == '{')
			stack = append(stack, c)
			s.pos++
			s.skipSpace()
			if s.pos < len(s.data) && s.data[s.pos] == c+2 { // '}' or ']'
				s.pos++
				stack = stack[:len(stack)-1]
				s.close()
				break
			}
			if c == '{' && !s.member() {
				return
			}
			continue
		case c == '"':
			if !s.str() {
				return
			}
		case c == '-' || ('0' <= c && c <= '9'):
			if !s.number() {
				return
			}
		case c == 't':
			if !s.literal("true") {
				return
			}
		case c == 'f':
			if !s.literal("false") {
				return
			}
		case c == 'n':
			if !s.literal("null") {
				return
			}
		default:
			s.fail()
			return
		}
		// A value ended: close containers or go on to the next value.
		for {
			if len(stack) == 0 {
				return
			}
			s.skipSpace()
			if s.pos >= len(s.data) {
				s.fail()
				return
			}
			top := stack[len(stack)-1]
			c := s.data[s.pos]
			if c == top+2 {
				s.pos++
				stack = stack[:len(stack)-1]
				s.close()
				continue
			}
			if c != ',' {
				s.fail()
				return
			}
			s.pos++
			s.valueDone()
			if top == '{' {
				s.skipSpace()
				if !s.member() {
					return
				}
			}
			break
		}
	}
}

// member reads an object member's key and colon (at the key's quote).
func (s *scanner) member() bool {
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		s.fail()
		return false
	}
	start := s.pos + 1
	if !s.str() {
		return false
	}
	if s.rules != nil && s.keyErr == nil {
		s.key(s.data[start : s.pos-1])
	}
	s.skipSpace()
	if s.pos >= len(s.data) || s.data[s.pos] != ':' {
		s.fail()
		return false
	}
	s.pos++
	return true
}

// str reads a string (at its quote) as encoding/json's scanner does: no
// control characters, only its escapes; any other byte, invalid UTF-8
// included, is taken.
func (s *scanner) str() bool {
	d := s.data
	i := s.pos + 1
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return true
		case c == '\\':
			if i+1 >= len(d) {
				s.pos = i
				s.fail()
				return false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) || !isHex(d[i+5]) {
					s.pos = i
					s.fail()
					return false
				}
				i += 6
			default:
				s.pos = i
				s.fail()
				return false
			}
		case c < 0x20:
			s.pos = i
			s.fail()
			return false
		default:
			i++
		}
		if i-s.pos > scanCheckEvery {
			s.pos = i - 1
			if !s.tick() {
				return false
			}
		}
	}
	s.pos = i
	s.fail()
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?; the byte
// after it must end it (white space, a comma, a bracket, the end).
func (s *scanner) number() bool {
	d := s.data
	i := s.pos
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	default:
		s.pos = i
		s.fail()
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			s.pos = i
			s.fail()
			return false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			s.pos = i
			s.fail()
			return false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	s.pos = i
	return s.ended()
}

// literal reads true, false or null.
func (s *scanner) literal(word string) bool {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		s.fail()
		return false
	}
	s.pos += len(word)
	return s.ended()
}

// ended reports whether a scalar may end at pos: encoding/json refuses
// "truex" and "1x" where the next byte would continue a token.
func (s *scanner) ended() bool {
	if s.pos >= len(s.data) {
		return true
	}
	switch c := s.data[s.pos]; {
	case isSpace(c), c == ',', c == ']', c == '}':
		return true
	}
	s.fail()
	return false
}

// ---- the key check ---------------------------------------------------------

// open starts a container's key frame.
func (s *scanner) open(object bool) {
	if s.rules == nil || s.keyErr != nil {
		return
	}
	if len(s.frames) >= MaxKeyDepth {
		s.keyErr = errKeyDepth
		return
	}
	f := keyFrame{object: object, first: len(s.keys), cur: -1, arena: len(s.arena)}
	if n := len(s.frames); n > 0 {
		parent := &s.frames[n-1]
		f.opaque = parent.opaque
		if !f.opaque && parent.object && parent.prefix {
			e := s.keys[parent.cur]
			key := s.arena[e.e0:e.e1]
			f.opaque = s.rules.opaque(parent.path, key)
			if !f.opaque && object && s.rules.leads(parent.path, key) {
				f.path, f.prefix = joinPath(parent.path, string(key)), true
			}
		}
	} else {
		f.prefix = object
	}
	s.frames = append(s.frames, f)
}

// errKeyDepth is the key check's nesting bound.
var errKeyDepth = fmt.Errorf("JSON nests deeper than %d levels", MaxKeyDepth)

// close ends the innermost container's frame, and counts it as a value of
// its parent.
func (s *scanner) close() {
	if s.rules == nil || s.keyErr != nil {
		return
	}
	f := &s.frames[len(s.frames)-1]
	s.keys = s.keys[:f.first]
	s.arena = s.arena[:f.arena]
	s.frames = s.frames[:len(s.frames)-1]
}

// valueDone advances the innermost frame past a comma: an array's index
// is that of the element being read.
func (s *scanner) valueDone() {
	if s.rules == nil || s.keyErr != nil || len(s.frames) == 0 {
		return
	}
	if f := &s.frames[len(s.frames)-1]; !f.object {
		f.index++
	}
}

func (s *scanner) keyString(i int) string {
	e := s.keys[i]
	return string(s.arena[e.e0:e.e1])
}

// key records raw (a key's bytes between its quotes) in the innermost
// object, refusing a second spelling of it.
func (s *scanner) key(raw []byte) {
	f := &s.frames[len(s.frames)-1]
	// Grown by doubling: a million small keys cost twice their size.
	if need := len(s.arena) + 2*len(raw) + 8; need > cap(s.arena) {
		s.arena = append(make([]byte, 0, max(2*cap(s.arena), need, 1024)), s.arena...)
	}
	if len(s.keys) == cap(s.keys) {
		s.keys = append(make([]keyEntry, 0, max(2*cap(s.keys), 64)), s.keys...)
	}
	var e keyEntry
	e.e0 = len(s.arena)
	s.arena = appendUnquoted(s.arena, raw)
	e.e1 = len(s.arena)
	e.f0, e.f1 = e.e0, e.e1
	if !f.opaque {
		s.arena = appendFolded(s.arena, s.arena[e.e0:e.e1])
		e.f0, e.f1 = e.e1, len(s.arena)
	}
	id := s.arena[e.f0:e.f1]
	seen := -1
	if f.set != nil {
		seen = s.find(f.set, id)
	} else {
		for j := f.first; j < len(s.keys); j++ {
			if k := s.keys[j]; string(s.arena[k.f0:k.f1]) == string(id) {
				seen = j
				break
			}
		}
	}
	if seen >= 0 {
		first := s.keys[seen]
		s.keyErr = &DuplicateKeyError{Path: s.framePath(), First: string(s.arena[first.e0:first.e1]), Second: string(s.arena[e.e0:e.e1])}
		return
	}
	s.keys = append(s.keys, e)
	f.cur = len(s.keys) - 1
	switch {
	case f.set != nil:
		s.insert(f.set, f.first, f.cur)
	case len(s.keys)-f.first > smallObjectKeys:
		f.set = &keyIndex{slots: make([]int32, 4*smallObjectKeys)}
		for j := f.first; j < len(s.keys); j++ {
			s.insert(f.set, f.first, j)
		}
	}
}

// find returns the index in s.keys of the key whose identity is id, or -1.
func (s *scanner) find(x *keyIndex, id []byte) int {
	mask := len(x.slots) - 1
	for h := int(maphash.Bytes(keySeed, id)) & mask; x.slots[h] != 0; h = (h + 1) & mask {
		k := s.keys[x.slots[h]-1]
		if string(s.arena[k.f0:k.f1]) == string(id) {
			return int(x.slots[h] - 1)
		}
	}
	return -1
}

// insert adds key j of the object whose keys start at first, doubling
// the slots (and placing every key again) past half full.
func (s *scanner) insert(x *keyIndex, first, j int) {
	if 2*(x.n+1) > len(x.slots) {
		x.slots, x.n = make([]int32, 2*len(x.slots)), 0
		for i := first; i < j; i++ {
			s.place(x, i)
		}
	}
	s.place(x, j)
}

func (s *scanner) place(x *keyIndex, j int) {
	k := s.keys[j]
	mask := len(x.slots) - 1
	h := int(maphash.Bytes(keySeed, s.arena[k.f0:k.f1])) & mask
	for x.slots[h] != 0 {
		h = (h + 1) & mask
	}
	x.slots[h] = int32(j + 1)
	x.n++
}

// framePath is the innermost frame's path, as ValidationError paths read
// ("capabilities[2].effects"; "" for the top level).
func (s *scanner) framePath() string {
	p := ""
	for i := 1; i < len(s.frames); i++ {
		parent := &s.frames[i-1]
		if parent.object {
			p = joinPath(p, s.keyString(parent.cur))
		} else {
			p += "[" + itoa(parent.index) + "]"
		}
	}
	return p
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return string(b[i:])
}

// ---- strings as encoding/json decodes them -----------------------------------

// appendUnquoted appends the string whose bytes between the quotes are
// raw (already scanned), decoded as encoding/json decodes it: escapes
// resolved, a surrogate pair joined, a lone surrogate and each byte of
// invalid UTF-8 replaced by U+FFFD.
func appendUnquoted(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\' && i+1 < len(raw):
			switch raw[i+1] {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hex4(raw[i+2:])
				i += 6
				if utf16.IsSurrogate(r) {
					if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						if dec := utf16.DecodeRune(r, hex4(raw[i+2:])); dec != unicode.ReplacementChar {
							dst = utf8.AppendRune(dst, dec)
							i += 6
							continue
						}
					}
					r = unicode.ReplacementChar
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default: // " \ /
				dst = append(dst, raw[i+1])
			}
			i += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n == 1 {
				dst = utf8.AppendRune(dst, unicode.ReplacementChar)
			} else {
				dst = append(dst, raw[i:i+n]...)
			}
			i += n
		}
	}
	return dst
}

// hex4 is the value of four hex digits (scanned: they are).
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// appendFolded appends k folded as encoding/json matches a key to a
// struct field (see foldKey).
func appendFolded(dst, k []byte) []byte {
	for i := 0; i < len(k); {
		c := k[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(k[i:])
		dst = utf8.AppendRune(dst, unicode.ToUpper(unicode.ToLower(r)))
		i += n
	}
	return dst
}

// ---- reading a document the scanner accepted ----------------------------

// skipSpaceAt returns the first offset at or after i that is not white
// space.
func skipSpaceAt(d []byte, i int) int {
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	return i
}

// skipString returns the offset just past the string whose quote is at
// d[i].
func skipString(d []byte, i int) int {
	i++
	for i < len(d) {
		j := bytes.IndexByte(d[i:], '"')
		if j < 0 {
			return len(d)
		}
		i += j
		// A quote ends the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for k := i - 1; k >= 0 && d[k] == '\\'; k-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
	return len(d)
}

// skipAt returns the offset just past the value at d[i] (no white space
// before it).
func skipAt(d []byte, i int) int {
	if i >= len(d) {
		return i
	}
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
		depth := 0
		for i < len(d) {
			switch d[i] {
			case '"':
				i = skipString(d, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(d) {
		switch c := d[i]; {
		case isSpace(c), c == ',', c == ']', c == '}':
			return i
		}
		i++
	}
	return i
}

// member is one object member of a scanned document: its key's bytes
// between the quotes (with the quotes: keyQuoted) and its value's span.
type member struct {
	key, keyQuoted []byte
	v0, v1         int
}

// eachMember calls f for each member of the object at d[i] ('{'), in
// order, until f returns false.
func eachMember(d []byte, i int, f func(m member) bool) {
	i = skipSpaceAt(d, i+1)
	for i < len(d) && d[i] == '"' {
		k1 := skipString(d, i)
		m := member{key: d[i+1 : max(i+1, k1-1)], keyQuoted: d[i:k1]}
		i = skipSpaceAt(d, k1)
		if i >= len(d) || d[i] != ':' {
			return
		}
		m.v0 = skipSpaceAt(d, i+1)
		m.v1 = skipAt(d, m.v0)
		if !f(m) {
			return
		}
		i = skipSpaceAt(d, m.v1)
		if i >= len(d) || d[i] != ',' {
			return
		}
		i = skipSpaceAt(d, i+1)
	}
}

// eachElement calls f with the span of each element of the array at d[i]
// ('['), in order, until f returns false.
func eachElement(d []byte, i int, f func(v0, v1 int) bool) {
	i = skipSpaceAt(d, i+1)
	if i < len(d) && d[i] == ']' {
		return
	}
	for i < len(d) {
		v1 := skipAt(d, i)
		if v1 == i || !f(i, v1) {
			return
		}
		i = skipSpaceAt(d, v1)
		if i >= len(d) || d[i] != ',' {
			return
		}
		i = skipSpaceAt(d, i+1)
	}
}
