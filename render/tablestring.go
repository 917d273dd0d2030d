package render

import (
	"io"
	"strings"

	"modbay/modproto"
)

// ParseTableString is [ParseTable] over text the caller will not change,
// with the same result. A CSV or TSV file's cells are substrings of s
// rather than copies (a cell with an escaped quote is the one copied), and
// its rows share one allocation of cells, so a table costs s and 16 bytes
// a cell beside it instead of a second copy of its text and an allocation
// a row. Input it does not read that way (JSON, a '\r' in CSV, a record
// encoding/csv would refuse) goes through ParseTable on a copy.
func ParseTableString(s, mediaType string) (*TableData, error) {
	if td, ok := parseDelimited(s, mediaType); ok {
		return td, nil
	}
	return ParseTable([]byte(s), mediaType)
}

// parseDelimited is ParseTableString's own CSV and TSV path: ok is false
// when the input takes another path (ParseTable's JSON branches, an empty
// file) or is not plain enough to read in place (a '\r' in CSV, a
// malformed record: ParseTable reports those).
func parseDelimited(s, mediaType string) (*TableData, bool) {
	trimmed := strings.TrimSpace(strings.TrimPrefix(s, utf8BOM))
	if len(trimmed) == 0 {
		return nil, false
	}
	mt := baseMediaType(mediaType)
	isCSV := mt == "text/csv" || mt == "text/tab-separated-values"
	if !isCSV && (trimmed[0] == '{' || trimmed[0] == '[') || Resolve("", mt) == modproto.PresentationJSON && mt != "" {
		return nil, false // ParseTable's JSON branches
	}
	s = strings.TrimPrefix(s, utf8BOM)
	if mt == "text/tab-separated-values" {
		return parseTSVString(s), true
	}
	delim := sniffDelimiterFrom(func() io.Reader { return strings.NewReader(s) })
	if delim >= 0x80 {
		return nil, false
	}
	nrec, ncells, ok := scanCSV(s, byte(delim), nil)
	if !ok {
		return nil, false
	}
	if nrec == 0 {
		return &TableData{Delimiter: delim}, true
	}
	records := make([][]string, 0, nrec)
	arena := make([]string, 0, ncells)
	scanCSV(s, byte(delim), func(fields []string) {
		arena = append(arena, fields...)
		n := len(arena)
		records = append(records, arena[n-len(fields):n:n])
	})
	return fromRecords(&TableData{Delimiter: delim}, records), true
}

// scanCSV reads s as encoding/csv does with delimiter d (RFC 4180, strict
// quotes, any field count, empty lines skipped, a line's "\r\n" read as
// "\n" and a '\r' ending the text dropped): it calls emit with each record's fields (substrings of s, reused by the
// next call; nil emit only counts) and returns how many records and cells
// there were; ok is false where encoding/csv would report an error (a
// bare or extraneous quote, a quoted field left open).
func scanCSV(s string, d byte, emit func([]string)) (records, cells int, ok bool) {
	var fields []string
	p := 0
	for p < len(s) {
		switch {
		case s[p] == '\n': // an empty line
			p++
			continue
		case s[p] == '\r' && (p+1 == len(s) || s[p+1] == '\n'):
			p += 2
			continue
		}
		fields = fields[:0]
		for end := false; !end; {
			var f string
			if p < len(s) && s[p] == '"' {
				f, p, end, ok = quotedField(s, p, d, emit != nil)
				if !ok {
					return records, cells, false
				}
			} else {
				e := p
				for e < len(s) && s[e] != d && s[e] != '\n' {
					e++
				}
				f = s[p:e]
				if (e == len(s) || s[e] == '\n') && strings.HasSuffix(f, "\r") {
					f = f[:len(f)-1] // the line's "\r\n", or a '\r' ending the text
				}
				if strings.IndexByte(f, '"') >= 0 {
					return records, cells, false // a bare quote
				}
				end = e >= len(s) || s[e] == '\n'
				p = e + 1
			}
			fields = append(fields, f)
		}
		records, cells = records+1, cells+len(fields)
		if emit != nil {
			emit(fields)
		}
	}
	return records, cells, true
}

// quotedField reads the quoted field opening at s[p]: its text (a copy
// only when it holds an escaped quote or a "\r\n", read as "\n", and
// only when decode), the offset after it and its delimiter or newline, and
// whether that ended the record; ok is false for an unterminated field or
// a quote followed by anything but a quote, d, a newline (or "\r\n") or
// the end (or a '\r' ending the text).
func quotedField(s string, p int, d byte, decode bool) (f string, next int, end, ok bool) {
	start := p + 1
	var b []byte // the text with escaped quotes, when there are any
	for q := start; ; {
		i := strings.IndexByte(s[q:], '"')
		if i < 0 {
			return "", 0, false, false
		}
		q += i + 1
		if q < len(s) && s[q] == '"' {
			if decode {
				b = append(b, s[start:q]...)
			}
			q++
			start = q
			continue
		}
		f = s[start : q-1]
		if b != nil {
			f = string(append(b, f...))
		}
		if decode && strings.Contains(f, "\r\n") {
			f = strings.ReplaceAll(f, "\r\n", "\n")
		}
		switch {
		case q == len(s):
			return f, q, true, true
		case s[q] == d:
			return f, q + 1, false, true
		case s[q] == '\n':
			return f, q + 1, true, true
		case s[q] == '\r' && q+1 == len(s):
			return f, q + 1, true, true
		case s[q] == '\r' && s[q+1] == '\n':
			return f, q + 2, true, true
		}
		return "", 0, false, false
	}
}

// parseTSVString is parseTSV with fields that are substrings of s.
func parseTSVString(s string) *TableData {
	var records [][]string
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, "\r\n")
		if len(line) == 0 {
			continue
		}
		records = append(records, strings.Split(line, "\t"))
	}
	td := &TableData{Delimiter: '\t'}
	if len(records) == 0 {
		return td
	}
	td = fromRecords(td, records)
	td.Ambiguous = tsvAmbiguity(strings.NewReader(s), records)
	return td
}
