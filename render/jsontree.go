package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// JSONKind is the type of one JSON value in a [JSONNode].
type JSONKind int

// The kinds of JSON value.
const (
	JSONObject JSONKind = iota
	JSONArray
	JSONString
	JSONNumber
	JSONBool
	JSONNull
)

// JSONNode is one value of a JSON document, located by byte offsets into the
// source rather than decoded: a 20 MB document costs one scan to index its
// top level, and a container's members are found only when [JSONChildren] is
// asked for them (a tree viewer asks when the person expands it).
type JSONNode struct {
	// Key is the member name (decoded, unsanitized) for an object member.
	Key string
	// Index is the element index in an array, or -1 for an object member
	// and the top-level values.
	Index int
	// KeyStart is the offset of the member name's opening quote, or -1.
	KeyStart int
	// Start and End delimit the value: src[Start:End] is its JSON text.
	Start, End int
	// Kind is the value's type.
	Kind JSONKind
}

// IsContainer reports whether n is an object or an array.
func (n JSONNode) IsContainer() bool { return n.Kind == JSONObject || n.Kind == JSONArray }

// ErrJSONTree is wrapped by the errors of [JSONRoots] and [JSONChildren]: the
// bytes are not the JSON the index expected. Callers validate with
// encoding/json first, so it means a bug or a file that changed.
var ErrJSONTree = errors.New("json index")

// JSONRoots indexes the top-level values of src (one for a JSON document,
// several for JSON Lines or concatenated JSON), after a UTF-8 BOM. It does
// not validate: pass it bytes encoding/json accepted (json.Valid for a
// document, or each value of a stream). Roots have Index -1.
func JSONRoots(src []byte) ([]JSONNode, error) {
	i := 0
	if bytes.HasPrefix(src, []byte(utf8BOM)) {
		i = len(utf8BOM)
	}
	var out []JSONNode
	for {
		i = skipSpace(src, i)
		if i >= len(src) {
			return out, nil
		}
		n, err := jsonValueAt(src, i)
		if err != nil {
			return out, err
		}
		n.Index, n.KeyStart = -1, -1
		out = append(out, n)
		i = n.End
	}
}

// JSONCount is how many values src holds, at every depth (containers,
// their members' values and scalars; member names are not values), in one
// scan without allocating. Like [JSONRoots] it does not validate: pass it
// bytes encoding/json accepted.
func JSONCount(src []byte) int {
	n := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '"':
			end, _ := skipString(src, i)
			if j := skipSpace(src, end); j >= len(src) || src[j] != ':' {
				n++ // a string value, not a member name
			}
			i = end - 1
		case c == '{' || c == '[':
			n++
		case c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n':
			n++
			i = skipWord(src, i) - 1
		}
	}
	return n
}

// JSONChildren returns the members of an object or the elements of an array
// n of src, each with its span; scalars have none.
func JSONChildren(src []byte, n JSONNode) ([]JSONNode, error) {
	if !n.IsContainer() {
		return nil, nil
	}
	var out []JSONNode
	i := skipSpace(src, n.Start+1)
	for idx := 0; i < n.End-1; idx++ {
		child := JSONNode{Index: idx, KeyStart: -1}
		if n.Kind == JSONObject {
			if i >= len(src) || src[i] != '"' {
				return out, fmt.Errorf("%w: byte %d: expected a member name", ErrJSONTree, i)
			}
			end, err := skipString(src, i)
			if err != nil {
				return out, err
			}
			child.Key = decodeJSONString(src[i:end])
			child.KeyStart, child.Index = i, -1
			i = skipSpace(src, end)
			if i >= len(src) || src[i] != ':' {
				return out, fmt.Errorf("%w: byte %d: expected ':'", ErrJSONTree, i)
			}
			i = skipSpace(src, i+1)
		}
		v, err := jsonValueAt(src, i)
		if err != nil {
			return out, err
		}
		child.Start, child.End, child.Kind = v.Start, v.End, v.Kind
		out = append(out, child)
		i = skipSpace(src, v.End)
		if i < len(src) && src[i] == ',' {
			i = skipSpace(src, i+1)
		}
	}
	return out, nil
}

// jsonValueAt scans the value starting at src[i] and returns its span and kind.
func jsonValueAt(src []byte, i int) (JSONNode, error) {
	if i >= len(src) {
		return JSONNode{}, fmt.Errorf("%w: unexpected end at byte %d", ErrJSONTree, i)
	}
	n := JSONNode{Start: i}
	var err error
	switch c := src[i]; {
	case c == '{' || c == '[':
		n.Kind = JSONObject
		if c == '[' {
			n.Kind = JSONArray
		}
		n.End, err = skipContainer(src, i)
	case c == '"':
		n.Kind = JSONString
		n.End, err = skipString(src, i)
	case c == 't' || c == 'f':
		n.Kind = JSONBool
		n.End = skipWord(src, i)
	case c == 'n':
		n.Kind = JSONNull
		n.End = skipWord(src, i)
	case c == '-' || (c >= '0' && c <= '9'):
		n.Kind = JSONNumber
		n.End = skipWord(src, i)
	default:
		err = fmt.Errorf("%w: byte %d: unexpected %q", ErrJSONTree, i, c)
	}
	return n, err
}

// skipSpace returns the index of the first non-whitespace byte at or after i.
func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\n' || src[i] == '\t' || src[i] == '\r') {
		i++
	}
	return i
}

// skipWord returns the end of a literal or number starting at i.
func skipWord(src []byte, i int) int {
	for i < len(src) && strings.IndexByte(",]} \n\t\r:", src[i]) < 0 {
		i++
	}
	return i
}

// skipString returns the offset just past the string literal starting at i.
func skipString(src []byte, i int) (int, error) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return len(src), fmt.Errorf("%w: unterminated string at byte %d", ErrJSONTree, i)
}

// skipContainer returns the offset just past the object or array opening at
// i, skipping strings so brackets inside them do not count.
func skipContainer(src []byte, i int) (int, error) {
	depth := 0
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '"':
			end, err := skipString(src, j)
			if err != nil {
				return end, err
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return len(src), fmt.Errorf("%w: unclosed container at byte %d", ErrJSONTree, i)
}

// decodeJSONString decodes a JSON string literal; invalid text is returned
// as written.
func decodeJSONString(lit []byte) string {
	if bytes.IndexByte(lit, '\\') < 0 {
		return string(lit[1 : len(lit)-1])
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return string(lit)
	}
	return s
}

// JSONScalar returns the text a tree shows for scalar n of src: a string's
// decoded value as [QuoteInert] shows it, a number as written, true, false
// or null. The result is sanitized and on one line.
// A string longer than maxScalarBytes is cut there and ends in "…", so a
// 10 MB string costs no more to show than a short one.
func JSONScalar(src []byte, n JSONNode) string {
	lit := src[n.Start:n.End]
	if len(lit) > maxScalarBytes {
		lit = lit[:maxScalarBytes]
		if n.Kind != JSONString {
			return SanitizeLine(string(lit)) + "…"
		}
		// Drop a partial escape or multi-byte rune at the cut, then close.
		if i := bytes.LastIndexByte(lit, '\\'); i >= len(lit)-6 {
			lit = lit[:i]
		}
		cut := append(bytes.Clone(lit), '"')
		return QuoteInert(strings.ToValidUTF8(decodeJSONString(cut), "")) + "…"
	}
	if n.Kind == JSONString {
		return QuoteInert(decodeJSONString(lit))
	}
	return SanitizeLine(string(lit))
}

// QuoteInert shows a decoded JSON string (a value or a member name) in
// double quotes the way every viewer shows untrusted text: '"' and '\' are
// escaped as JSON writes them, so the quotes still delimit, and control
// characters appear as [SanitizeCell]'s glyphs (ESC as ␛, a line break as
// ⏎), never as an escape such as \x1b or \u001b that reads as other text.
func QuoteInert(s string) string {
	if strings.ContainsAny(s, `"\`) {
		s = quoteReplacer.Replace(s)
	}
	return `"` + SanitizeCell(s) + `"`
}

// quoteReplacer escapes the two characters a JSON string cannot hold bare.
var quoteReplacer = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// maxScalarBytes is the most of a scalar's source JSONScalar decodes.
const maxScalarBytes = 4096

// JSONPathSegment is the part of a jq-style path that n adds to its parent's:
// ".name" for an identifier key, `["odd key"]` for any other key, "[3]" for
// an array element and "" for a top-level value. An odd key is quoted as a
// JSON string (a control character as \u001b), the syntax jq reads, so a
// copied path selects the node; it is plain ASCII punctuation, inert on
// screen.
func JSONPathSegment(n JSONNode) string {
	switch {
	case n.Index >= 0:
		return "[" + strconv.Itoa(n.Index) + "]"
	case n.KeyStart < 0:
		return ""
	case isIdentifier(n.Key):
		return "." + n.Key
	default:
		return "[" + jsonQuote(n.Key) + "]"
	}
}

// jsonQuote encodes s as a JSON string literal, without the HTML escaping
// encoding/json applies by default (jq would read \u003c, but a person
// reads < better). encoding/json escapes C0 controls but writes DEL, C1
// controls (U+009B is CSI) and the bidi overrides raw; those are written
// as \u escapes too, which jq reads as the same key, so the literal is
// inert on screen.
func jsonQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) != nil {
		return strconv.Quote(s)
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if !strings.ContainsFunc(out, isRawControl) {
		return out
	}
	var q strings.Builder
	for _, r := range out {
		if isRawControl(r) {
			fmt.Fprintf(&q, `\u%04x`, r)
			continue
		}
		q.WriteRune(r)
	}
	return q.String()
}

// isRawControl reports whether r is a control encoding/json leaves
// unescaped: DEL, a C1 control or a bidi embedding, override or isolate.
func isRawControl(r rune) bool {
	return r == 0x7F || (r >= c1Base && r <= c1Last) || isBidiControl(r)
}

// isIdentifier reports whether s can follow a '.' in a jq path.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// JSONLeafValue is a scalar node's whole value as a person reads it: a
// string decoded (escapes resolved, no quotes), a number, true, false or
// null as written. Unlike [JSONScalar] it is never cut; it is untrusted
// text, so pass it through [SanitizeText] before the terminal.
func JSONLeafValue(src []byte, n JSONNode) string {
	lit := src[n.Start:n.End]
	if n.Kind == JSONString {
		return strings.ToValidUTF8(decodeJSONString(lit), "\uFFFD")
	}
	return string(lit)
}
