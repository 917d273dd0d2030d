package render

import (
	"io"
	"math"
	"strings"

	"modbay/modproto"
)

// ParseTableString is [ParseTable] over text the caller will not change,
// with the same table. A CSV file is read in place: the table holds the
// text and where each row starts (4 bytes a row), and [TableData.Row]
// cuts a row's cells out of the text when asked (substrings; a cell with
// an escaped quote or a "\r\n" is the one copied), so a table costs its
// text and little more whatever the shape of its cells. A TSV file's
// cells are substrings of s. Input it does not read that way (JSON, a
// record encoding/csv would refuse) goes through ParseTable on a copy.
func ParseTableString(s, mediaType string) (*TableData, error) {
	if td, ok := parseDelimited(s, mediaType); ok {
		return td, nil
	}
	return ParseTable([]byte(s), mediaType)
}

// Len is how many data rows td has.
func (td *TableData) Len() int {
	if td.lazy != nil {
		return len(td.lazy.starts)
	}
	return len(td.Rows)
}

// Row is data row i (0 ≤ i < Len), exactly len(Header) cells: Rows[i],
// or for a table read in place (ParseTableString, whose Rows is nil) the
// row cut out of the text, a new slice on every call.
func (td *TableData) Row(i int) []string {
	if td.lazy == nil {
		return td.Rows[i]
	}
	l := td.lazy
	n := len(td.Header)
	fields, _, _ := scanRecord(l.src, int(l.starts[i]), l.delim, true, make([]string, 0, n))
	return fitRow(fields, n)
}

// lazyRows is a CSV table read in place: the text (after its BOM), the
// delimiter, and where each data row's record starts in it.
type lazyRows struct {
	src    string
	delim  byte
	starts []uint32
}

// parseDelimited is ParseTableString's own CSV and TSV path: ok is false
// when the input takes another path (ParseTable's JSON branches, an empty
// file) or is not plain enough to read in place (a malformed record:
// ParseTable reports those).
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
	if delim >= 0x80 || len(s) > math.MaxUint32 {
		return nil, false
	}
	return indexCSV(s, byte(delim))
}

// indexCSV reads CSV s in place (lazyRows) with fromRecords' result: the
// header is the first of the leading records with the modal field count,
// the records before it are the preamble, and the table is as wide as its
// widest record less the trailing columns empty throughout.
func indexCSV(s string, d byte) (*TableData, bool) {
	td := &TableData{Delimiter: rune(d)}
	// First the count, so the starts are allocated once.
	nrec, _, ok := scanCSV(s, d, nil)
	if !ok {
		return nil, false
	}
	if nrec == 0 {
		return td, true
	}
	starts := make([]uint32, 0, nrec)
	counts := map[int]int{}
	// The widths and last non-empty cell of the leading records (the
	// header is among them) and the most of both over the rest.
	var headLen, headLast [maxPreambleRecords]int
	restLen, restLast := 0, 0
	mode, freq := 0, 0
	scanCSV(s, d, func(start int, fields []string) {
		k := len(starts)
		starts = append(starts, uint32(start))
		counts[len(fields)]++
		if c := counts[len(fields)]; c > freq || c == freq && len(fields) > mode {
			mode, freq = len(fields), c
		}
		last := 0
		for j, f := range fields {
			if f != "" {
				last = j + 1
			}
		}
		if k < maxPreambleRecords {
			headLen[k], headLast[k] = len(fields), last
		} else {
			restLen, restLast = max(restLen, len(fields)), max(restLast, last)
		}
	})
	head := 0
	for k := range min(nrec, maxPreambleRecords) {
		if headLen[k] == mode {
			head = k
			break
		}
	}
	for k := range head {
		rec, _, _ := scanRecord(s, int(starts[k]), d, true, nil)
		var fields []string
		for _, f := range rec {
			if f = strings.TrimSpace(f); f != "" {
				fields = append(fields, f)
			}
		}
		td.Preamble = append(td.Preamble, strings.Join(fields, ", "))
	}
	header, _, _ := scanRecord(s, int(starts[head]), d, true, nil)
	// normalize: the columns up to the last one with a name or a cell.
	n := headLast[head]
	for k := head + 1; k < min(nrec, maxPreambleRecords); k++ {
		n = max(n, headLast[k])
	}
	n = max(n, restLast)
	td.Header = fitRow(header, n)
	td.lazy = &lazyRows{src: s, delim: d, starts: starts[head+1:]}
	return td, true
}

// scanCSV reads s as encoding/csv does with delimiter d (RFC 4180, strict
// quotes, any field count, empty lines skipped, a line's "\r\n" read as
// "\n" and a '\r' ending the text dropped): it calls emit with each
// record's start and fields, raw (a quoted field's text between its
// quotes, escapes and all: empty exactly when the cell is) and reused by
// the next call; nil emit only counts. It returns how many records and
// cells there were; ok is false where encoding/csv would report an error
// (a bare or extraneous quote, a quoted field left open).
func scanCSV(s string, d byte, emit func(start int, fields []string)) (records, cells int, ok bool) {
	var fields []string
	for p := 0; ; {
		p = skipEmptyLines(s, p)
		if p >= len(s) {
			return records, cells, true
		}
		start := p
		if fields, p, ok = scanRecord(s, p, d, false, fields[:0]); !ok {
			return records, cells, false
		}
		records, cells = records+1, cells+len(fields)
		if emit != nil {
			emit(start, fields)
		}
	}
}

// skipEmptyLines returns the offset of the first line at or after p that
// is not empty ("\n", "\r\n", or a '\r' ending the text).
func skipEmptyLines(s string, p int) int {
	for p < len(s) {
		switch {
		case s[p] == '\n':
			p++
		case s[p] == '\r' && (p+1 == len(s) || s[p+1] == '\n'):
			p += 2
		default:
			return p
		}
	}
	return p
}

// scanRecord reads the record starting at s[p] (not an empty line) into
// fields: substrings of s, decoded (escaped quotes, a quoted "\r\n")
// when decode, else raw; it returns them, the offset after the record,
// and ok false where encoding/csv would report an error.
func scanRecord(s string, p int, d byte, decode bool, fields []string) ([]string, int, bool) {
	for end := false; !end; {
		var f string
		if p < len(s) && s[p] == '"' {
			var ok bool
			if f, p, end, ok = quotedField(s, p, d, decode); !ok {
				return fields, p, false
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
				return fields, p, false // a bare quote
			}
			end = e >= len(s) || s[e] == '\n'
			p = e + 1
		}
		fields = append(fields, f)
	}
	return fields, p, true
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
		if !decode {
			f = s[p+1 : q-1] // raw, escapes and all
		}
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
