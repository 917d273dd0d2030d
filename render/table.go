package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
	"github.com/charmbracelet/x/ansi"

	"modbay/cellwidth"
	"modbay/internal/words"
	"modbay/modproto"
)

const (
	// MaxTableRows is the most data rows Table draws. A terminal shows a few
	// dozen at a time and lipgloss sizes columns over every row it is given,
	// so a 100k-row CSV would cost seconds per redraw for rows nobody scrolls
	// to; the footer says how many were left out.
	MaxTableRows = 500
	// maxParseWarnings is how many malformed records ParseTable describes one
	// by one; later ones are only counted, so a binary file fed in as CSV
	// cannot produce a megabyte of warnings.
	maxParseWarnings = 20
	// maxParseErrors stops CSV parsing after this many malformed records: by
	// then the input is not CSV and the rest is noise.
	maxParseErrors = 1000
	// sniffRecords is how many records of each candidate delimiter the
	// sniffer parses; enough to see past a metadata preamble.
	sniffRecords = 100
	// sniffBytes is how much of the text the sniffer reads per candidate:
	// a 60 MB line was otherwise parsed whole once per delimiter.
	sniffBytes = 1 << 20
	// maxPreambleRecords bounds how far into a CSV the header may be found
	// (the first row with the modal field count). Real preambles are a few
	// lines (the World Bank's is 2 records); a ragged file must not lose its
	// real header to a data row far below.
	maxPreambleRecords = 10
	// minColumnCells and readableColumnCells bound the narrowest text width a
	// shown column gets (unless its content is narrower): width/8 cells,
	// clamped to 4..10. A column that would get less is left out, and counted
	// in the footer, rather than squeezed to a sliver such as "35.…": ten
	// cells show a date or a typical number whole, and at narrow widths four
	// still show a word's start.
	minColumnCells      = 4
	readableColumnCells = 10
	// columnFloorDivisor sets the floor at width/8 cells: about eight
	// columns across any terminal before they start to be left out.
	columnFloorDivisor = 8
	// cellPadding is the blank cells on each side of a cell's text.
	cellPadding = 1
	// columnBorderCells is the one-cell border drawn left of each column.
	columnBorderCells = 1
	// newlineGlyph stands for a line break inside a cell: a table row is one
	// terminal line.
	newlineGlyph = "⏎"
	// ellipsis marks text cut to fit.
	ellipsis = "…"
	// utf8BOM is the byte order mark spreadsheet programs put before CSV text.
	utf8BOM = "\xEF\xBB\xBF"
)

// candidateDelimiters are the separators the CSV sniffer tries, in order of
// preference when two fit equally well.
var candidateDelimiters = []rune{',', ';', '\t', '|'}

// TableData is a parsed table: a header and rows of equal length.
type TableData struct {
	// Header names the columns. Every row has exactly len(Header) cells.
	Header []string
	// Rows are the data rows, in source order, padded with "" where a source
	// row was short; nil for a table read in place (ParseTableString), whose
	// rows Row cuts out of the text. Len and Row serve both.
	Rows [][]string
	// Preamble holds the CSV records found before the header (metadata lines
	// such as the World Bank's "Data Source"), each one's non-empty fields
	// joined with ", ". Empty for JSON.
	Preamble []string
	// Delimiter is the CSV field separator used, or 0 for JSON input.
	Delimiter rune
	// Warnings describe records that could not be parsed and were left out,
	// at most maxParseWarnings of them.
	Warnings []TableWarning
	// Skipped counts every record left out, described in Warnings or not.
	Skipped int
	// Ambiguous says why TSV quoting is ambiguous (a '"' cell spanning
	// lines reads as one cell in CSV, as a row of its own in TSV); "" when
	// it is not. ParseTable(src, "text/csv") reads it as CSV.
	Ambiguous string
	// lazy is the text and row starts of a table read in place.
	lazy *lazyRows
}

// TableWarning is one malformed record that ParseTable left out.
type TableWarning struct {
	// Line is the 1-based source line where the record broke (0 for JSON
	// input, whose errors are positioned by a *SyntaxError).
	Line int
	// Message says what was wrong.
	Message string
}

// String formats the warning as "line N: message".
func (w TableWarning) String() string {
	return fmt.Sprintf("line %d: %s", w.Line, w.Message)
}

// ParseTable reads a table from CSV, TSV or JSON bytes.
//
// JSON is used when the media type resolves to json (docs/protocol.md §10) or, unless
// the media type is text/csv or text/tab-separated-values, when the first
// non-blank byte is '[' or '{'. A JSON array of objects gives one row per
// object and the union of their keys as columns, in first-seen order; an
// array of arrays gives one row per array, with the first as header when it
// is all strings; an object gives key/value rows; nested values appear as
// compact JSON and null as "null".
//
// Otherwise the bytes are CSV (RFC 4180: quoted fields may hold delimiters,
// quotes and newlines): a leading UTF-8 BOM is dropped; the delimiter is '\t'
// for text/tab-separated-values and else sniffed among ',' ';' '\t' '|' as the
// one giving the most consistent field count over the first records; the
// header is the first record (within the first 10) whose field count is the
// modal one, records before it are kept as Preamble; short rows are padded,
// long rows widen the table; trailing columns that are empty throughout are
// dropped.
//
// A malformed record is left out and reported in Warnings; the error then
// names the first bad line ("table: line 7: ..."), and the returned TableData
// holds everything that parsed. Invalid JSON returns the rows read before the
// error and a *SyntaxError. Empty input returns ErrEmpty.
func ParseTable(src []byte, mediaType string) (*TableData, error) {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(src, []byte(utf8BOM)))
	if len(trimmed) == 0 {
		return &TableData{}, fmt.Errorf("table: %w", ErrEmpty)
	}
	mt := baseMediaType(mediaType)
	isCSV := mt == "text/csv" || mt == "text/tab-separated-values"
	if !isCSV && trimmed[0] == '{' {
		if td, err, ok := parseJSONLines(trimmed); ok {
			return td, err
		}
	}
	if Resolve("", mt) == modproto.PresentationJSON && mt != "" ||
		!isCSV && (trimmed[0] == '[' || trimmed[0] == '{') {
		return parseJSONTable(src)
	}
	src = bytes.TrimPrefix(src, []byte(utf8BOM))
	if mt == "text/tab-separated-values" {
		return parseTSV(src)
	}
	return parseCSV(src, sniffDelimiter(src))
}

// parseTSV reads IANA text/tab-separated-values: one record per line,
// fields split on tabs, no quoting at all (a '"' is an ordinary character,
// and a field cannot hold a tab or a newline).
func parseTSV(src []byte) (*TableData, error) {
	var records [][]string
	for line := range bytes.Lines(src) {
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			continue
		}
		records = append(records, strings.Split(string(line), "\t"))
	}
	td := &TableData{Delimiter: '\t'}
	if len(records) == 0 {
		return td, nil
	}
	td = fromRecords(td, records)
	td.Ambiguous = tsvAmbiguity(bytes.NewReader(src), records)
	return td, nil
}

// tsvAmbiguity says why a TSV file's quoting is ambiguous, "" when it is
// not: a field opens a '"' its line does not close, and read as CSV (tab
// separated) the file parses whole with that quoted cell spanning lines
// and every record as wide as the first — TSV has no quoting, so the
// cell's lines are rows of their own there, misaligned.
func tsvAmbiguity(src io.Reader, records [][]string) string {
	open := -1
	for i, rec := range records {
		for _, f := range rec {
			if strings.HasPrefix(f, `"`) && (len(f) == 1 || !strings.HasSuffix(f, `"`)) {
				open = i
				break
			}
		}
		if open >= 0 {
			break
		}
	}
	if open < 0 {
		return ""
	}
	r := newCSVReaderFrom(src, '\t')
	var n, width int
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || (n > 0 && len(rec) != width) {
			return ""
		}
		if n == 0 {
			width = len(rec)
		}
		n++
	}
	if n >= len(records) {
		return ""
	}
	return fmt.Sprintf("record %d opens a quoted cell that spans lines: read as TSV (no quoting), it is %d rows; read as CSV, %d", open+1, len(records), n)
}

// sniffDelimiter picks the candidate delimiter whose records, over the first
// sniffRecords, most often have the modal field count, preferring a modal
// count above one and then a larger modal count.
func sniffDelimiter(src []byte) rune {
	return sniffDelimiterFrom(func() io.Reader { return bytes.NewReader(src) })
}

// sniffDelimiterFrom is sniffDelimiter over the text each call of src
// returns from its start.
func sniffDelimiterFrom(src func() io.Reader) rune {
	best, bestScore, bestCount := ',', -1.0, 0
	for _, d := range candidateDelimiters {
		r := newCSVReaderFrom(io.LimitReader(src(), sniffBytes), d)
		var counts []int
		// Each Read consumes at least one line; bounding the attempts too
		// keeps a file of nothing but malformed records cheap.
		for attempt := 0; attempt < 2*sniffRecords && len(counts) < sniffRecords; attempt++ {
			rec, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				var pe *csv.ParseError
				if errors.As(err, &pe) {
					continue
				}
				break
			}
			counts = append(counts, len(rec))
		}
		mode, n := modal(counts)
		if mode < 2 || len(counts) == 0 {
			continue
		}
		score := float64(n) / float64(len(counts))
		if score > bestScore || score == bestScore && mode > bestCount {
			best, bestScore, bestCount = d, score, mode
		}
	}
	return best
}

// modal returns the most frequent value in counts (the larger on a tie) and
// how often it occurs.
func modal(counts []int) (mode, freq int) {
	seen := map[int]int{}
	for _, c := range counts {
		seen[c]++
		if seen[c] > freq || seen[c] == freq && c > mode {
			mode, freq = c, seen[c]
		}
	}
	return mode, freq
}

// newCSVReader returns a strict RFC 4180 reader over src with delimiter d
// that allows records of any length.
func newCSVReader(src []byte, d rune) *csv.Reader {
	return newCSVReaderFrom(bytes.NewReader(src), d)
}

// newCSVReaderFrom is newCSVReader over any reader.
func newCSVReaderFrom(src io.Reader, d rune) *csv.Reader {
	r := csv.NewReader(src)
	r.Comma = d
	r.FieldsPerRecord = -1
	return r
}

// parseCSV implements the CSV half of ParseTable.
func parseCSV(src []byte, delim rune) (*TableData, error) {
	td := &TableData{Delimiter: delim}
	r := newCSVReader(src, delim)
	var records [][]string
	var firstErr error
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				firstErr = cmpOr(firstErr, fmt.Errorf("table: %w", err))
				break
			}
			td.Skipped++
			if len(td.Warnings) < maxParseWarnings {
				td.Warnings = append(td.Warnings, TableWarning{Line: pe.Line, Message: pe.Err.Error()})
			}
			firstErr = cmpOr(firstErr, fmt.Errorf("table: line %d: %w", pe.Line, pe.Err))
			if td.Skipped >= maxParseErrors {
				break
			}
			continue
		}
		records = append(records, rec)
	}
	if len(records) == 0 {
		return td, firstErr
	}
	return fromRecords(td, records), firstErr
}

// fromRecords finds the header (the first of the leading records with the
// modal field count; what comes before it is preamble), fills td and
// normalizes it.
func fromRecords(td *TableData, records [][]string) *TableData {
	counts := make([]int, len(records))
	for i, rec := range records {
		counts[i] = len(rec)
	}
	mode, _ := modal(counts)
	head := 0
	for i, rec := range records[:min(len(records), maxPreambleRecords)] {
		if len(rec) == mode {
			head = i
			break
		}
	}
	for _, rec := range records[:head] {
		var fields []string
		for _, f := range rec {
			if f = strings.TrimSpace(f); f != "" {
				fields = append(fields, f)
			}
		}
		td.Preamble = append(td.Preamble, strings.Join(fields, ", "))
	}
	td.Header = records[head]
	td.Rows = records[head+1:]
	td.normalize()
	return td
}

// cmpOr returns a if it is non-nil, else b.
func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// normalize makes every row as long as the header (widening the header with
// unnamed columns for long rows), then drops trailing columns that are empty
// in the header and in every row.
func (td *TableData) normalize() {
	n := len(td.Header)
	for _, row := range td.Rows {
		n = max(n, len(row))
	}
	for used := n; used > 0; used-- {
		empty := used > len(td.Header) || td.Header[used-1] == ""
		for _, row := range td.Rows {
			if !empty {
				break
			}
			empty = used > len(row) || row[used-1] == ""
		}
		if !empty {
			break
		}
		n = used - 1
	}
	td.Header = fitRow(td.Header, n)
	for i, row := range td.Rows {
		td.Rows[i] = fitRow(row, n)
	}
}

// fitRow returns row cut or padded with "" to exactly n cells.
func fitRow(row []string, n int) []string {
	if len(row) >= n {
		return row[:n:n]
	}
	out := make([]string, n)
	copy(out, row)
	return out
}

// parseJSONLines reads JSON Lines (one JSON value per line, RFC 7464 without
// the record separators): ok is false unless the first line is a whole JSON
// object and another line follows. A line that is not valid JSON is left out
// and reported with its line number, as a malformed CSV record is.
func parseJSONLines(src []byte) (td *TableData, err error, ok bool) {
	first, rest, found := bytes.Cut(src, []byte("\n"))
	if !found || !json.Valid(first) || len(bytes.TrimSpace(rest)) == 0 {
		return nil, nil, false
	}
	td = &TableData{}
	var elems []json.RawMessage
	line := 0
	for len(src) > 0 {
		var l []byte
		l, src, _ = bytes.Cut(src, []byte("\n"))
		line++
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		if !json.Valid(l) {
			td.Skipped++
			if len(td.Warnings) < maxParseWarnings {
				td.Warnings = append(td.Warnings, TableWarning{Line: line, Message: "not a JSON value"})
			}
			err = cmpOr(err, fmt.Errorf("table: line %d: not a JSON value", line))
			continue
		}
		elems = append(elems, json.RawMessage(l))
	}
	td.fromJSONArray(elems)
	return td, err, true
}

// parseJSONTable implements the JSON half of ParseTable. Errors are
// positioned in src, a leading BOM included.
func parseJSONTable(src []byte) (*TableData, error) {
	td := &TableData{}
	body := bytes.TrimPrefix(src, []byte(utf8BOM))
	skip := len(src) - len(body)
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return td, jsonError(src, skip, dec, err)
	}
	switch tok {
	case json.Delim('['):
		var elems []json.RawMessage
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				td.fromJSONArray(elems)
				return td, jsonError(src, skip, dec, err)
			}
			elems = append(elems, raw)
		}
		if _, err := dec.Token(); err != nil {
			td.fromJSONArray(elems)
			return td, jsonError(src, skip, dec, err)
		}
		td.fromJSONArray(elems)
	case json.Delim('{'):
		td.Header = []string{"key", "value"}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return td, jsonError(src, skip, dec, err)
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return td, jsonError(src, skip, dec, err)
			}
			key, _ := k.(string)
			td.Rows = append(td.Rows, []string{key, jsonCell(raw)})
		}
		if _, err := dec.Token(); err != nil {
			return td, jsonError(src, skip, dec, err)
		}
	default:
		raw, _ := json.Marshal(tok)
		td.Header = []string{"value"}
		td.Rows = [][]string{{jsonCell(raw)}}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("unexpected data after the top-level value")
		}
		return td, jsonError(src, skip, dec, err)
	}
	return td, nil
}

// fromJSONArray fills td from the elements of a top-level JSON array.
func (td *TableData) fromJSONArray(elems []json.RawMessage) {
	allArrays := len(elems) > 0
	for _, e := range elems {
		if firstByte(e) != '[' {
			allArrays = false
			break
		}
	}
	if allArrays {
		td.fromJSONRows(elems)
		return
	}
	cols := map[string]int{}
	col := func(name string) int {
		i, ok := cols[name]
		if !ok {
			i = len(td.Header)
			cols[name] = i
			td.Header = append(td.Header, name)
		}
		return i
	}
	for _, e := range elems {
		row := map[int]string{}
		if firstByte(e) == '{' {
			for k, v := range jsonObject(e) {
				row[col(k)] = jsonCell(v)
			}
		} else {
			row[col("value")] = jsonCell(e)
		}
		cells := make([]string, len(td.Header))
		for i, v := range row {
			cells[i] = v
		}
		td.Rows = append(td.Rows, cells)
	}
	td.normalize()
}

// fromJSONRows fills td from an array of arrays: the first inner array is the
// header when it holds only strings, else columns are numbered from 1.
func (td *TableData) fromJSONRows(elems []json.RawMessage) {
	rows := make([][]string, 0, len(elems))
	for _, e := range elems {
		var items []json.RawMessage
		_ = json.Unmarshal(e, &items) // validated by the decoder already
		row := make([]string, len(items))
		for i, it := range items {
			row[i] = jsonCell(it)
		}
		rows = append(rows, row)
	}
	var first []json.RawMessage
	_ = json.Unmarshal(elems[0], &first)
	allStrings := len(elems) > 1 && len(first) > 0
	for _, it := range first {
		allStrings = allStrings && firstByte(it) == '"'
	}
	if allStrings {
		td.Header, rows = rows[0], rows[1:]
	}
	td.Rows = rows
	n := len(td.Header)
	for _, r := range rows {
		n = max(n, len(r))
	}
	for i := len(td.Header); i < n; i++ {
		td.Header = append(td.Header, strconv.Itoa(i+1))
	}
	td.normalize()
}

// jsonObject yields the members of a valid JSON object in source order,
// duplicates included.
func jsonObject(raw json.RawMessage) func(yield func(string, json.RawMessage) bool) {
	return func(yield func(string, json.RawMessage) bool) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if _, err := dec.Token(); err != nil {
			return
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return
			}
			key, _ := k.(string)
			if !yield(key, v) {
				return
			}
		}
	}
}

// firstByte returns the first non-blank byte of raw, or 0.
func firstByte(raw []byte) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// jsonCell is the text of one JSON value in a table cell: a string's decoded
// text, a number as written, true/false/null as words, and an object or array
// as compact JSON.
func jsonCell(raw json.RawMessage) string {
	switch firstByte(raw) {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '{', '[':
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			return b.String()
		}
	}
	return string(bytes.TrimSpace(raw))
}

// Table renders CSV, TSV or JSON table bytes (see [ParseTable]) as a bordered
// table at most o.Width cells wide.
//
// Columns are sized to their content and shrunk to fit the width; cell text
// that still does not fit is cut with "…". Columns that would get too little
// room (under width/8 cells, clamped to 4..10) are left out from the right. Each cell is sanitized and kept
// on one line: a newline inside a cell shows as "⏎". At most MaxTableRows rows
// are drawn. Preamble records are printed above the table; a footer line
// below says "showing N of M rows" (and columns) when anything was left out,
// and how many malformed records were skipped. The header is bold and colored
// unless o.NoColor.
//
// The error is ParseTable's; the string then shows whatever parsed, or [Text]
// of src when nothing did.
func Table(src []byte, mediaType string, o Options) (string, error) {
	td, err := ParseTable(src, mediaType)
	if len(td.Header) == 0 { // nothing parsed, or rows without a single column
		if err != nil && !errors.Is(err, ErrEmpty) {
			return Text(src, o), err
		}
		return "(empty table)\n", err
	}
	return renderTable(td, o), err
}

// renderTable draws td for o; see Table.
func renderTable(td *TableData, o Options) string {
	width := o.width()
	p := o.colors()
	ncols := len(td.Header)
	nrows := len(td.Rows)
	shownRows := min(nrows, MaxTableRows)

	// Sanitize every shown cell once, cut to the widest a column can be.
	maxCell := width - 2*cellPadding - 2*columnBorderCells
	cell := func(s string) string {
		return cellwidth.Truncate(SanitizeCell(s), maxCell, ellipsis)
	}
	header := make([]string, ncols)
	natural := make([]int, ncols)
	for j := range header {
		header[j] = cell(td.Header[j])
		natural[j] = cellWidth(header[j])
	}
	rows := make([][]string, shownRows)
	for i := range rows {
		rows[i] = make([]string, ncols)
		for j := range rows[i] {
			rows[i][j] = cell(td.Rows[i][j])
			natural[j] = max(natural[j], cellWidth(rows[i][j]))
		}
	}

	widths := columnWidths(natural, width)
	shownCols := len(widths)
	header = header[:shownCols]
	for j, w := range widths {
		header[j] = cellwidth.Truncate(header[j], w, ellipsis)
	}
	for i := range rows {
		rows[i] = rows[i][:shownCols]
		for j, w := range widths {
			rows[i][j] = cellwidth.Truncate(rows[i][j], w, ellipsis)
		}
	}

	base := lipgloss.NewStyle().Padding(0, cellPadding)
	headStyle := base
	if !o.NoColor {
		headStyle = base.Bold(true).Foreground(p.accent)
	}
	t := table.New().
		Border(lipgloss.NormalBorder()).
		BorderStyle(o.style(p.muted)).
		Headers(header...).
		Rows(rows...).
		Width(width).
		FitContent().
		Wrap(false).
		StyleFunc(func(row, _ int) lipgloss.Style {
			if row == table.HeaderRow {
				return headStyle
			}
			return base
		})

	var b strings.Builder
	for _, line := range td.Preamble {
		b.WriteString(cellwidth.Truncate(SanitizeLine(line), width, ellipsis))
		b.WriteByte('\n')
	}
	b.WriteString(t.String())
	b.WriteByte('\n')

	var notes []string
	if shownRows < nrows {
		notes = append(notes, fmt.Sprintf("showing %d of %d rows", shownRows, nrows))
	}
	if shownCols < ncols {
		notes = append(notes, fmt.Sprintf("%d of %d columns", shownCols, ncols))
		if shownRows == nrows {
			notes[len(notes)-1] = "showing " + notes[len(notes)-1]
		}
	}
	if td.Skipped > 0 {
		notes = append(notes, fmt.Sprintf("%d malformed %s skipped", td.Skipped, words.Plural(td.Skipped, "record", "records")))
	}
	if td.Ambiguous != "" {
		notes = append(notes, "ambiguous quoting: "+td.Ambiguous+" (--media-type text/csv reads it so)")
	}
	if len(notes) > 0 {
		b.WriteString(o.style(p.muted).Render(ansi.Wrap(strings.Join(notes, ", "), width, "")))
		b.WriteByte('\n')
	}
	return fitLines(b.String(), width)
}

// columnWidths decides how many columns fit in a table width cells wide and
// how wide each one's text is, given each column's natural (widest cell)
// width. Columns are taken from the left while each can get at least the
// floor (width/8 clamped to minColumnCells..readableColumnCells, or its
// natural width if less) plus padding and border. If
// the natural widths do not all fit, the space is shared max-min fairly: every
// column narrower than a common cap keeps its natural width and the wider
// ones get the cap (the remainder goes to the leftmost of them), so one long
// column cannot starve the rest. The result has one entry per shown column.
func columnWidths(natural []int, width int) []int {
	const frame = 2*cellPadding + columnBorderCells
	budget := width - columnBorderCells // the leftmost border
	floor := max(minColumnCells, min(readableColumnCells, width/columnFloorDivisor))
	var shown []int
	used := 0
	for _, n := range natural {
		need := max(1, min(n, floor)) + frame
		if used+need > budget && len(shown) > 0 {
			break
		}
		used += need
		shown = append(shown, max(1, n))
	}
	text := budget - frame*len(shown) // cells left for the columns' text
	total := 0
	for _, n := range shown {
		total += n
	}
	if total <= text {
		return shown
	}
	// Find the largest cap such that sum(min(n, cap)) <= text.
	lo, hi := 1, text
	for lo < hi {
		c := (lo + hi + 1) / 2
		sum := 0
		for _, n := range shown {
			sum += min(n, c)
		}
		if sum <= text {
			lo = c
		} else {
			hi = c - 1
		}
	}
	out := make([]int, len(shown))
	left := text
	for i, n := range shown {
		out[i] = max(1, min(n, lo))
		left -= out[i]
	}
	for i, n := range shown {
		if left <= 0 {
			break
		}
		if n > out[i] {
			out[i]++
			left--
		}
	}
	return out
}
