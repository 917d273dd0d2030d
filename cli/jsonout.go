package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// writeJSON writes v as indented JSON followed by a newline: the one
// encoder of every --json output. Go's encoder writes C1 controls
// (U+0080–U+009F, where U+009B is a one-byte CSI for many terminals), DEL,
// bidi controls (U+202E reverses what follows) and zero-width characters
// raw; a person who pipes --json to a terminal (or `jq` does) would then run
// a module's escape sequence or read text reversed. writeJSON escapes each
// of them as \uXXXX, which decodes to the same value (RFC 8259 §7), so
// every consumer still reads the module's bytes unchanged.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeJSONText(buf.Bytes()))
	return err
}

// escapeJSONText rewrites every rune of encoded JSON b that jsonEscaped
// selects as a \u escape (two, a surrogate pair, beyond U+FFFF). Such runes
// can only occur inside strings (JSON's own syntax is ASCII), so the
// result is valid JSON with the same value. b is returned as is when
// nothing needs escaping.
func escapeJSONText(b []byte) []byte {
	i := bytes.IndexFunc(b, jsonEscaped)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if !jsonEscaped(r) {
			out = append(out, b[i:i+size]...)
		} else if r > 0xFFFF {
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += size
	}
	return out
}

// jsonEscaped reports whether r is written as a \u escape in --json
// output: DEL, the C1 controls, and every format character (category Cf:
// bidi embeddings, overrides, isolates and marks, zero-width spaces and
// joiners, word joiners, the byte-order mark, tags).
func jsonEscaped(r rune) bool {
	return r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r > 0x7f && unicode.Is(unicode.Cf, r))
}
