package modproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ---- invalid JSON in plain words -----------------------------------------

// maxWordQuoted bounds the bare word a message quotes back ("write
// "hello", not hello"): a pasted paragraph is not repeated whole.
const maxWordQuoted = 24

// MsgBadJSON starts every JSONProblem.
const MsgBadJSON = "not valid JSON"

// JSONProblem says why raw is not one JSON value, in plain words, with
// where (line and column, counted from 1, columns in characters) when the
// decoder says; "" when raw is one. Every JSON input a person types (a
// form field, invoke --input, --elicit-input) is judged by it: a bare
// word is "strings need quotes", a
// trailing comma, a missing comma, single quotes and an early end each get
// their own words; anything else keeps the decoder's.
func JSONProblem(raw []byte) string {
	if json.Valid(raw) {
		return "" // a number no float64 holds (1e999) is still JSON
	}
	var v any
	err := json.Unmarshal(raw, &v)
	if err == nil {
		return ""
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return MsgBadJSON + ": " + err.Error()
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return MsgBadJSON + ": there is nothing here (an empty input is {})"
	}
	at := int(se.Offset) - 1 // the byte the decoder stopped at
	if at < 0 {
		at = 0
	}
	msg := se.Error()
	why := msg
	switch {
	case strings.HasPrefix(msg, "unexpected end of JSON input"):
		at = len(bytes.TrimRightFunc(raw, unicode.IsSpace))
		why = "it ends too early: a closing }, ] or \" is missing"
	case (strings.Contains(msg, "looking for beginning of") || strings.Contains(msg, "in literal")) && bareWord(raw, at) != "":
		w, start := bareWordAt(raw, at)
		at = start
		if utf8.RuneCountInString(w) > maxWordQuoted {
			w = string([]rune(w)[:maxWordQuoted]) + "…"
		}
		why = fmt.Sprintf("strings need quotes: write %q, not %s", w, w)
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(lit, w) {
				why = fmt.Sprintf("%s is not a value: did you mean %s? (a string needs quotes: %q)", w, lit, w)
			}
		}
	case strings.Contains(msg, `invalid character '\''`):
		why = `strings need double quotes ("…"), not single quotes`
	case strings.Contains(msg, "looking for beginning of object key string") && prevNonSpace(raw, at) == ',',
		strings.Contains(msg, "looking for beginning of value") && raw[at] == ']' && prevNonSpace(raw, at) == ',':
		why = "a comma with nothing after it (remove the last comma)"
	case strings.Contains(msg, "after object key:value pair"), strings.Contains(msg, "after array element"):
		why = "a comma is missing between two values"
	case strings.Contains(msg, "looking for beginning of object key string"):
		why = `keys need double quotes: {"key": value}`
	case strings.Contains(msg, "after top-level value"):
		why = "there is more after the value ended (one value only: an extra } or ]?)"
	case strings.Contains(msg, "in string literal"):
		why = `a string cannot hold a raw tab or line break: write \t or \n`
	}
	line, col := lineCol(raw, at)
	return fmt.Sprintf("%s — %s (line %d, column %d)", MsgBadJSON, why, line, col)
}

// bareWord returns the unquoted word (letters, digits, _ and -) that the
// decoder stopped in at byte at, when it is not true, false or null;
// "" otherwise.
func bareWord(raw []byte, at int) string {
	w, _ := bareWordAt(raw, at)
	if w == "" || w == "true" || w == "false" || w == "null" {
		return ""
	}
	if r, _ := utf8.DecodeRuneInString(w); !unicode.IsLetter(r) && r != '_' {
		return "" // a number gone wrong, not a word
	}
	return w
}

// bareWordAt returns the word around byte at and its first byte.
func bareWordAt(raw []byte, at int) (string, int) {
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' }
	if at >= len(raw) {
		return "", at
	}
	start := at
	for start > 0 {
		r, n := utf8.DecodeLastRune(raw[:start])
		if !isWord(r) {
			break
		}
		start -= n
	}
	end := at
	for end < len(raw) {
		r, n := utf8.DecodeRune(raw[end:])
		if !isWord(r) {
			break
		}
		end += n
	}
	return string(raw[start:end]), start
}

// prevNonSpace is the last byte before at that is not white space (0 when
// none).
func prevNonSpace(raw []byte, at int) byte {
	t := bytes.TrimRightFunc(raw[:min(at, len(raw))], unicode.IsSpace)
	if len(t) == 0 {
		return 0
	}
	return t[len(t)-1]
}

// lineCol is the line and column (from 1; columns in characters) of byte
// at in raw.
func lineCol(raw []byte, at int) (int, int) {
	at = min(max(at, 0), len(raw))
	before := raw[:at]
	line := bytes.Count(before, []byte("\n")) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[lineStart:]) + 1
}

// UnicodeProblem says why JSON text raw is not Unicode text, "" when it
// is: an invalid UTF-8 byte (a Latin-1 file), or a \u escape of a lone
// surrogate (\ud800 alone). Decoders replace both with U+FFFD, so a value
// holding one is not the value the bytes carry (docs/protocol.md §4: the
// host could not recognise it echoed back). RFC 8259 §8.1 wants UTF-8.
func UnicodeProblem(raw []byte) string {
	if !utf8.Valid(raw) {
		for i := 0; i < len(raw); {
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n == 1 {
				return fmt.Sprintf("byte %d (0x%02x) is not UTF-8: save the input as UTF-8 (RFC 8259 §8.1)", i, raw[i])
			}
			i += n
		}
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(raw):
			if raw[i+1] != 'u' {
				i++ // one escaped character
				continue
			}
			hi, ok := Hex4(raw[i+2:])
			if !ok {
				i++
				continue
			}
			switch {
			case 0xDC00 <= hi && hi < 0xE000:
				return fmt.Sprintf("the \\u escape at byte %d is a lone low surrogate (U+%04X), not a character", i, hi)
			case 0xD800 <= hi && hi < 0xDC00:
				lo, ok := rune(0), false
				if i+7 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
					lo, ok = Hex4(raw[i+8:])
				}
				if !ok || lo < 0xDC00 || lo >= 0xE000 {
					return fmt.Sprintf("the \\u escape at byte %d is a lone high surrogate (U+%04X), not a character", i, hi)
				}
				i += 11
			default:
				i += 5
			}
		}
	}
	return ""
}

// Hex4 is the four hex digits b begins with, as a rune (a JSON \u
// escape's); ok is false when b has fewer or another byte.
func Hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
