package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// jsonIndent is the indent per nesting level of rendered JSON: two spaces, as
// jq and most viewers print it.
const jsonIndent = "  "

// SyntaxError says where a JSON document stops being valid JSON.
type SyntaxError struct {
	// Offset is the 0-based byte offset of the first byte that is not valid
	// JSON, or len(src) for input that ends too early.
	Offset int64
	// Line and Col are the 1-based line and column (in bytes) of Offset.
	Line, Col int
	// Err is the decoder's description of the problem.
	Err error
}

// Error implements error: "json: line 3:14 (byte 41): invalid character ...".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("json: line %d:%d (byte %d): %v", e.Line, e.Col, e.Offset, e.Err)
}

// Unwrap returns the decoder's error.
func (e *SyntaxError) Unwrap() error { return e.Err }

// ErrEmpty is returned by JSON and ParseTable for input that is empty or only
// whitespace: there is no document to show.
var ErrEmpty = errors.New("empty input")

// JSON pretty-prints a JSON document with a two-space indent, keeping the
// source's key order, number text (no float rounding: 1e400 and
// 12345678901234567890 stay as written) and string escapes exactly as written,
// so a string holding "\u001b[2J" shows those six characters, never an ESC.
// Anything else a string literal carries raw (C1 controls, DEL, invalid UTF-8)
// is passed through [Sanitize]. A stream of several top-level values (JSON
// Lines) is rendered value after value.
//
// Unless o.NoColor, keys, strings, numbers, booleans and null are colored for
// o.Dark. Lines wider than o.Width cells are broken (long strings continue on
// the next line), keeping each piece's color.
//
// Invalid JSON returns a *SyntaxError naming the byte offset and line:col,
// together with [Text] of the whole source as a best-effort rendering. Empty
// input returns "" and ErrEmpty.
func JSON(src []byte, o Options) (string, error) {
	values, err := splitJSON(src)
	if err != nil {
		return Text(src, o), err
	}
	if len(values) == 0 {
		return "", fmt.Errorf("json: %w", ErrEmpty)
	}
	var ind bytes.Buffer
	for i, v := range values {
		if i > 0 {
			ind.WriteByte('\n')
		}
		if err := json.Indent(&ind, v, "", jsonIndent); err != nil {
			// splitJSON already validated v; keep the raw text if Indent disagrees.
			ind.Write(v)
		}
	}
	return colorJSON(Sanitize(ind.String()), o), nil
}

// splitJSON returns the raw top-level values of src, validated by
// encoding/json, after a leading UTF-8 byte order mark (which some Windows
// tools write and encoding/json rejects). On invalid input the error is a
// *SyntaxError positioned in src, BOM included.
func splitJSON(src []byte) ([]json.RawMessage, error) {
	body := bytes.TrimPrefix(src, []byte(utf8BOM))
	dec := json.NewDecoder(bytes.NewReader(body))
	var out []json.RawMessage
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, jsonError(src, len(src)-len(body), dec, err)
		}
		out = append(out, raw)
	}
}

// jsonError turns an error from dec, which reads src[skip:], into a
// *SyntaxError positioned in src.
func jsonError(src []byte, skip int, dec *json.Decoder, err error) *SyntaxError {
	off := dec.InputOffset() + int64(skip)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// encoding/json counts the offending byte as read.
		off = max(0, se.Offset-1) + int64(skip)
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(src))
		err = errors.New("unexpected end of input")
	}
	line, col := lineCol(src, off)
	return &SyntaxError{Offset: off, Line: line, Col: col, Err: err}
}

// lineCol returns the 1-based line and byte column of offset off in src.
func lineCol(src []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(src))))
	before := src[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// jsonClass is the syntactic class of a piece of indented JSON text, which
// picks its color.
type jsonClass int

const (
	jsonPunct jsonClass = iota // braces, brackets, commas, colons, spaces
	jsonKey
	jsonString
	jsonNumber
	jsonBool
	jsonNull
)

// jsonToken is a run of indented JSON text of one class.
type jsonToken struct {
	text  string
	class jsonClass
}

// colorJSON colors indented, sanitized JSON text s and breaks lines wider than
// o.Width, keeping colors per piece so each output line is self-contained.
func colorJSON(s string, o Options) string {
	width := o.width()
	if o.NoColor {
		if !widerThan(s, width) {
			return s
		}
		var b strings.Builder
		for line := range strings.Lines(s) {
			body, nl := strings.CutSuffix(line, "\n")
			b.WriteString(strings.Join(jsonPieces(body, width), "\n"))
			if nl {
				b.WriteByte('\n')
			}
		}
		return b.String()
	}
	p := o.colors()
	var wraps [jsonNull + 1][2]string
	for class, c := range map[jsonClass]lipgloss.Style{
		jsonKey:    o.style(p.key),
		jsonString: o.style(p.str),
		jsonNumber: o.style(p.num),
		jsonBool:   o.style(p.keyword),
		jsonNull:   o.style(p.null),
	} {
		wraps[class] = styleWrap(c)
	}
	paint := func(t jsonToken) string {
		if t.class == jsonPunct || t.text == "" {
			return t.text
		}
		w := wraps[t.class]
		return w[0] + t.text + w[1]
	}
	var b strings.Builder
	b.Grow(len(s) * 2)
	for line := range strings.Lines(s) {
		body, nl := strings.CutSuffix(line, "\n")
		pieces := jsonPieces(body, width)
		// A line made shallower for its key is lexed as shown.
		body = strings.Join(pieces, "")
		toks := lexJSONLine(body)
		if strings.Join(pieces, "") != body {
			// Hardwrap dropped or added bytes; color first, then wrap.
			var lb strings.Builder
			for _, t := range toks {
				lb.WriteString(paint(t))
			}
			b.WriteString(fitLines(lb.String(), width))
		} else {
			for i, piece := range pieces {
				if i > 0 {
					b.WriteByte('\n')
				}
				var part []jsonToken
				part, toks = splitTokens(toks, len(piece))
				for _, t := range part {
					b.WriteString(paint(t))
				}
			}
		}
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// jsonPieces breaks an indented JSON line wider than width cells into
// lines of at most width (a string value continues at the line's
// start), never inside its key: a line whose key would not fit at its
// depth is drawn shallower (by as little as lets it, or its key, fit),
// its value after the key. A key wider than width is cut like any text.
func jsonPieces(body string, width int) []string {
	if cellWidth(body) <= width {
		return []string{body}
	}
	rest := strings.TrimLeft(body, " ")
	ind := len(body) - len(rest)
	if end := jsonKeyEnd(rest); end > 0 {
		if kw := cellWidth(rest[:end]); kw <= width {
			// Shallower by as little as lets the whole line fit, else
			// its key.
			if rw := cellWidth(rest); rw <= width {
				ind = min(ind, width-rw)
			} else {
				ind = min(ind, width-kw)
			}
			line := strings.Repeat(" ", ind) + rest
			head := line[:ind+end]
			if cellWidth(line) <= width {
				return []string{line}
			}
			out := []string{head}
			if tail := line[ind+end:]; tail != "" {
				// The value follows the key on its line as far as it fits.
				room := width - cellWidth(head)
				first := ansi.Cut(tail, 0, room)
				out[0] += first
				if r := tail[len(first):]; r != "" {
					out = append(out, strings.Split(ansi.Hardwrap(r, width, true), "\n")...)
				}
			}
			return out
		}
	}
	return strings.Split(ansi.Hardwrap(body, width, true), "\n")
}

// jsonKeyEnd is the length of the key, colon and space line starts with
// (`"key": `), 0 when it does not start with a key.
func jsonKeyEnd(line string) int {
	if !strings.HasPrefix(line, `"`) {
		return 0
	}
	for i := 1; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '"':
			rest := line[i+1:]
			if strings.HasPrefix(rest, ": ") {
				return i + 3
			}
			if strings.HasPrefix(rest, ":") {
				return i + 2
			}
			return 0
		}
	}
	return 0
}

// styleWrap returns the escape sequences st puts before and after a piece of
// plain one-line text, so a token can be styled by concatenation instead of a
// full lipgloss render per token (a large document has millions of tokens).
func styleWrap(st lipgloss.Style) [2]string {
	const probe = "x"
	out := st.Render(probe)
	i := strings.Index(out, probe)
	if i < 0 {
		return [2]string{}
	}
	return [2]string{out[:i], out[i+len(probe):]}
}

// splitTokens returns the first n bytes of toks as tokens, and the rest.
func splitTokens(toks []jsonToken, n int) (head, rest []jsonToken) {
	for n > 0 && len(toks) > 0 {
		t := toks[0]
		if len(t.text) <= n {
			head = append(head, t)
			n -= len(t.text)
			toks = toks[1:]
			continue
		}
		head = append(head, jsonToken{t.text[:n], t.class})
		toks[0] = jsonToken{t.text[n:], t.class}
		n = 0
	}
	return head, toks
}

// lexJSONLine splits one line of indented JSON (as json.Indent writes it, so a
// string never spans lines) into classed tokens. A string followed by ':' is a
// key. Text it cannot classify is punctuation.
func lexJSONLine(line string) []jsonToken {
	var toks []jsonToken
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(line) && line[j] != '"' {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(line))
			class := jsonString
			if rest := strings.TrimLeft(line[j:], " "); strings.HasPrefix(rest, ":") {
				class = jsonKey
			}
			toks = append(toks, jsonToken{line[i:j], class})
			i = j
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(line) && strings.IndexByte("0123456789+-.eE", line[j]) >= 0 {
				j++
			}
			toks = append(toks, jsonToken{line[i:j], jsonNumber})
			i = j
		case strings.HasPrefix(line[i:], "true"):
			toks = append(toks, jsonToken{"true", jsonBool})
			i += len("true")
		case strings.HasPrefix(line[i:], "false"):
			toks = append(toks, jsonToken{"false", jsonBool})
			i += len("false")
		case strings.HasPrefix(line[i:], "null"):
			toks = append(toks, jsonToken{"null", jsonNull})
			i += len("null")
		default:
			toks = append(toks, jsonToken{line[i : i+1], jsonPunct})
			i++
		}
	}
	return toks
}
