package examples

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"modbay/internal/words"
	"modbay/modproto"
)

// Schema and artifact kind ids of the notes example.
const (
	notesReportRequest = "notes.report.request/v1"
	notesReportResult  = "notes.report.result/v1"
	notesEchoRequest   = "notes.echo.request/v1"
	notesEchoResult    = "notes.echo.result/v1"
	// kindNotesReport is report.md, the markdown report.
	kindNotesReport = "notes.report/v1"
	// kindNotesTable is files.csv, one row per file.
	kindNotesTable = "notes.table/v1"
	// kindNotesSummary is summary.json, totals and per-file counts.
	kindNotesSummary = "notes.summary/v1"
)

// Defaults and limits of notes.report (mirrored in its request schema).
const (
	notesDefaultPattern  = "*.md"
	notesDefaultTitle    = "Notes report"
	notesDefaultMaxFiles = 50
	// notesMaxFilesLimit bounds max_files: a report is meant to be read by
	// a person, and 200 rows is already a long table.
	notesMaxFilesLimit = 200
	// notesMaxPatternLen bounds the glob, which is matched segment by
	// segment against every walked path.
	notesMaxPatternLen = 512
	// notesMaxTitleLen bounds the title, in runes: it is one heading.
	notesMaxTitleLen = 200
	// notesMaxFileBytes bounds one file read; larger files are skipped with
	// a warning (notes are small; a stray video must not be read).
	notesMaxFileBytes = 8 << 20
	// notesMaxWalkEntries bounds the directory entries visited while
	// matching, so a huge workspace cannot stall the run.
	notesMaxWalkEntries = 20_000
	// notesReportsDir is where reports go, under the workspace.
	notesReportsDir = "reports"
)

// savedCopiesDir is the workspace folder the cockpit's save prompt starts
// in (ui.SavedCopiesDir): copies of artifacts a person saved, which are
// outputs like the examples' own.
const savedCopiesDir = "saved"

// exampleOutputDirs are the workspace folders the examples and the
// cockpit's saved copies write into; a pattern walk skips them unless the
// pattern starts with that folder, so "**/*.md" does not summarize earlier
// reports or copies of them.
var exampleOutputDirs = []string{notesReportsDir, fetchDir, transcodeDir, renderFarmRendersDir, savedCopiesDir}

// notesModule declares the "Workspace notes" example.
func notesModule() *module {
	return &module{
		id:   "notes",
		name: "Workspace notes",
		caps: []*capability{
			{
				decl: modproto.Capability{
					ID:              "notes.report",
					Title:           "Summarize notes",
					Summary:         "Count words and lines of workspace notes and write a markdown report, a CSV table and a JSON summary.",
					RequestSchema:   notesReportRequest,
					ResultSchema:    notesReportResult,
					ArtifactSchemas: []string{kindNotesReport, kindNotesTable, kindNotesSummary},
					Effects:         localFree,
					Skills:          []string{"notes-report"},
				},
				run: runNotesReport,
			},
			{
				decl: modproto.Capability{
					ID:            "notes.echo",
					Title:         "Echo input",
					Summary:       "Return the input and what the host supplied (roots, grants, binaries, limits); writes nothing.",
					RequestSchema: notesEchoRequest,
					ResultSchema:  notesEchoResult,
					Effects:       localFree,
				},
				run: runNotesEcho,
			},
		},
		requestSchemas: map[string]string{
			notesReportRequest: `{
				"type": "object",
				"title": "Summarize notes",
				"properties": {
					"pattern": {"type": "string", "title": "Files", "minLength": 1, "maxLength": 512, "default": "*.md",
						"description": "Glob relative to the workspace root, e.g. notes/*.md; ** matches any number of folders."},
					"title": {"type": "string", "title": "Report title", "maxLength": 200, "default": "Notes report"},
					"max_files": {"type": "integer", "title": "Max files", "minimum": 1, "maximum": 200, "default": 50},
					"include_table": {"type": "boolean", "title": "Include table", "default": true,
						"description": "Add a table to report.md and write files.csv."}
				},
				"additionalProperties": false
			}`,
			notesEchoRequest: `{
				"type": "object",
				"title": "Echo input",
				"properties": {
					"message": {"type": "string", "title": "Message", "default": "hello from modbay"}
				},
				"additionalProperties": true
			}`,
		},
		resultSchemas: map[string]string{
			notesReportResult: `{
				"type": "object",
				"properties": {
					"report_dir": {"type": "string", "description": "Workspace-relative folder holding the artifacts."},
					"files": {"type": "integer", "description": "Files summarized."},
					"matched": {"type": "integer", "description": "Files that matched the pattern (more than files when truncated)."},
					"truncated": {"type": "boolean"},
					"bytes": {"type": "integer"},
					"lines": {"type": "integer"},
					"words": {"type": "integer"}
				},
				"required": ["report_dir", "files", "matched", "truncated", "bytes", "lines", "words"]
			}`,
			notesEchoResult: `{
				"type": "object",
				"properties": {
					"input": {"type": "object", "description": "The input, verbatim."},
					"host": {"type": "object", "description": "What the host supplied: capability, request_id, roots, grants, binaries, deadline_ms, max_output_bytes, extra, env (names only), cwd."}
				},
				"required": ["input", "host"]
			}`,
		},
		artifactSchemas: map[string]string{
			kindNotesReport: `{
				"type": "string",
				"contentMediaType": "text/markdown",
				"description": "report.md: title, totals, a bullet per file (words, lines, first heading), a table, and the request as a fenced JSON block."
			}`,
			kindNotesTable: `{
				"type": "string",
				"contentMediaType": "text/csv",
				"description": "files.csv: header path,bytes,lines,words,first_heading, then one row per file."
			}`,
			kindNotesSummary: `{
				"type": "object",
				"properties": {
					"title": {"type": "string"},
					"pattern": {"type": "string"},
					"request_id": {"type": "string"},
					"matched": {"type": "integer"},
					"truncated": {"type": "boolean"},
					"totals": {
						"type": "object",
						"properties": {
							"files": {"type": "integer"}, "bytes": {"type": "integer"},
							"lines": {"type": "integer"}, "words": {"type": "integer"}
						},
						"required": ["files", "bytes", "lines", "words"]
					},
					"files": {"type": "array", "items": {"$ref": "#/$defs/file"}}
				},
				"required": ["title", "pattern", "totals", "files"],
				"$defs": {
					"file": {
						"type": "object",
						"properties": {
							"path": {"type": "string"}, "bytes": {"type": "integer"}, "lines": {"type": "integer"},
							"words": {"type": "integer"}, "first_heading": {"type": "string"}
						},
						"required": ["path", "bytes", "lines", "words", "first_heading"]
					}
				}
			}`,
		},
		skills: []bundleDoc{{
			id: "notes-report", title: "Writing notes reports",
			summary: "When to run notes.report, how to choose a pattern, and how to read its three artifacts.",
			path:    "skills/notes-report/SKILL.md",
		}},
		overlays: []bundleDoc{{
			id: "notes-agent", title: "Workspace notes: agent guidance", path: "agents/notes.md",
		}},
		permissions: modproto.Permissions{
			FilesystemRead:  []string{"workspace"},
			FilesystemWrite: []string{"workspace"},
		},
	}
}

// noteStats is what notes.report counts for one file.
type noteStats struct {
	Path         string `json:"path"`
	Bytes        int64  `json:"bytes"`
	Lines        int    `json:"lines"`
	Words        int    `json:"words"`
	FirstHeading string `json:"first_heading"`
}

// noteTotals sums noteStats over the files of a report.
type noteTotals struct {
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	Lines int   `json:"lines"`
	Words int   `json:"words"`
}

// notesSummary is summary.json (artifact kind notes.summary/v1).
type notesSummary struct {
	Title     string      `json:"title"`
	Pattern   string      `json:"pattern"`
	RequestID string      `json:"request_id"`
	Matched   int         `json:"matched"`
	Truncated bool        `json:"truncated"`
	Totals    noteTotals  `json:"totals"`
	Files     []noteStats `json:"files"`
}

// runNotesReport is notes.report: match files in the workspace, count them,
// write report.md, files.csv (with include_table) and summary.json under
// reports/<run>/ and report them as artifacts.
func runNotesReport(c *call) (any, error) {
	in, err := parseInput(c.req.Input, notesReportRequest, []string{"pattern", "title", "max_files", "include_table"})
	if err != nil {
		return nil, err
	}
	pattern := in.str("pattern", notesDefaultPattern, false)
	title := in.str("title", notesDefaultTitle, false)
	maxFiles := in.integer("max_files", notesDefaultMaxFiles, 1, notesMaxFilesLimit)
	includeTable := in.boolean("include_table", true)
	if err := in.check(); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(title) > notesMaxTitleLen {
		return nil, invalidField(notesReportRequest, "title", map[string]any{"maxLength": notesMaxTitleLen}, "title is longer than %d characters", notesMaxTitleLen)
	}
	if strings.TrimSpace(title) == "" {
		title = notesDefaultTitle
	}
	segs, err := parsePattern(pattern)
	if err != nil {
		return nil, err
	}
	ws, err := c.root("workspace", true)
	if err != nil {
		return nil, err
	}

	c.progress("matching %s in the workspace", pattern)
	matches, err := matchFiles(c, ws, segs)
	if err != nil {
		return nil, err
	}
	matched := len(matches)
	truncated := matched > maxFiles
	if truncated {
		c.warn("%d files match %q; the report covers the first %d (max_files)", matched, pattern, maxFiles)
		matches = matches[:maxFiles]
	}
	if matched == 0 {
		c.warn("no file matches %q in the workspace; the report is empty", pattern)
	}

	files := make([]noteStats, 0, len(matches))
	var totals noteTotals
	for _, rel := range matches {
		if err := c.ctx.Err(); err != nil {
			return nil, err
		}
		c.progress("reading %s", rel)
		st, err := readNote(ws, rel)
		if err != nil {
			c.warn("skipped %s: %v", rel, err)
			continue
		}
		files = append(files, st)
		totals.Files++
		totals.Bytes += st.Bytes
		totals.Lines += st.Lines
		totals.Words += st.Words
	}

	dir := path.Join(notesReportsDir, c.runSuffix())
	inputJSON, _ := marshalIndent(map[string]any{"pattern": pattern, "title": title, "max_files": maxFiles, "include_table": includeTable})
	report := notesMarkdown(title, pattern, c.req.RequestID, files, totals, includeTable, inputJSON)
	c.progress("writing %s/report.md", dir)
	if err := c.writeArtifact(artifactFile{
		id: "report", kind: kindNotesReport, root: "workspace", rel: dir + "/report.md",
		mediaType: "text/markdown", presentation: "markdown", title: title, data: report,
	}); err != nil {
		return nil, err
	}
	if includeTable {
		table, err := notesCSV(files)
		if err != nil {
			return nil, err
		}
		c.progress("writing %s/files.csv", dir)
		if err := c.writeArtifact(artifactFile{
			id: "table", kind: kindNotesTable, root: "workspace", rel: dir + "/files.csv",
			mediaType: "text/csv", presentation: "table", title: "Files (" + strconv.Itoa(len(files)) + map[bool]string{true: " row)", false: " rows)"}[len(files) == 1], data: table,
		}); err != nil {
			return nil, err
		}
	}
	summary, err := marshalIndent(notesSummary{
		Title: title, Pattern: pattern, RequestID: c.req.RequestID,
		Matched: matched, Truncated: truncated, Totals: totals, Files: files,
	})
	if err != nil {
		return nil, err
	}
	c.progress("writing %s/summary.json", dir)
	if err := c.writeArtifact(artifactFile{
		id: "summary", kind: kindNotesSummary, root: "workspace", rel: dir + "/summary.json",
		mediaType: "application/json", presentation: "json", title: "Summary", data: summary,
	}); err != nil {
		return nil, err
	}
	return map[string]any{
		"report_dir": dir, "files": totals.Files, "matched": matched, "truncated": truncated,
		"bytes": totals.Bytes, "lines": totals.Lines, "words": totals.Words,
	}, nil
}

// parsePattern checks a notes.report glob and splits it into slash
// segments. An absolute pattern or one with a ".." segment could reach
// outside the workspace and is refused with path_outside_root; a malformed
// glob is invalid_request. "." and empty segments are dropped.
func parsePattern(pattern string) ([]string, error) {
	if pattern == "" {
		return nil, invalidField(notesReportRequest, "pattern", nil, "pattern must not be empty")
	}
	if len(pattern) > notesMaxPatternLen {
		return nil, invalidField(notesReportRequest, "pattern", map[string]any{"maxLength": notesMaxPatternLen}, "pattern is longer than %d bytes", notesMaxPatternLen)
	}
	outside := func() error {
		return newError(modproto.CodePathOutsideRoot, map[string]any{"field": "pattern", "pattern": pattern, "root": "workspace"},
			"pattern %q reaches outside the workspace root; use a path relative to it, without ..", pattern)
	}
	if !modproto.IsRelativePath(pattern) || filepath.IsAbs(pattern) {
		return nil, outside()
	}
	var segs []string
	for _, s := range strings.Split(pattern, "/") {
		switch {
		case s == "" || s == ".":
			continue
		case s == "..":
			return nil, outside()
		case s != "**":
			if _, err := path.Match(s, ""); err != nil {
				return nil, invalidField(notesReportRequest, "pattern", map[string]any{"pattern": pattern}, "pattern %q is not a valid glob: %v", pattern, err)
			}
		}
		segs = append(segs, s)
	}
	if len(segs) == 0 || segs[len(segs)-1] == "**" {
		return nil, invalidField(notesReportRequest, "pattern", map[string]any{"pattern": pattern}, "pattern %q names no files; end it with a file glob such as *.md", pattern)
	}
	return segs, nil
}

// hasMeta reports whether a glob segment has wildcard characters.
func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// matchSegments reports whether the slash segments of a path match the
// pattern segments, where "**" matches zero or more whole segments.
func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchSegments(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// matchFiles walks the workspace ws and returns, sorted, the slash paths of
// the regular files matching the pattern segments. The walk starts at the
// pattern's literal leading folders, goes no deeper than the pattern unless
// it has "**", skips dot-folders and the examples' output folders, and
// stops after notesMaxWalkEntries entries (with a warning). A symlink is
// followed only when it resolves to a regular file inside the workspace.
func matchFiles(c *call, ws string, segs []string) ([]string, error) {
	realWS, err := filepath.EvalSymlinks(ws)
	if err != nil {
		return nil, err
	}
	base := 0
	for base < len(segs)-1 && !hasMeta(segs[base]) && segs[base] != "**" {
		base++
	}
	maxDepth := len(segs)
	if slices.Contains(segs, "**") {
		maxDepth = -1
	}
	start := filepath.Join(ws, filepath.FromSlash(path.Join(segs[:base]...)))
	// The walk's start is reached through the pattern's literal folders,
	// which a symlink could lead out of the workspace.
	if realStart, err := filepath.EvalSymlinks(start); err == nil && !within(realWS, realStart) {
		return nil, newError(modproto.CodePathOutsideRoot,
			map[string]any{"field": "pattern", "pattern": path.Join(segs...), "root": "workspace"},
			"%s leads outside the workspace through a symlink", path.Join(segs[:base]...))
	}
	var matches []string
	visited := 0
	errWalkLimit := errors.New("walk limit")
	err = filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			c.warn("skipped %s: %v", relSlash(ws, p), err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if err := c.ctx.Err(); err != nil {
			return err
		}
		if visited++; visited > notesMaxWalkEntries {
			c.warn("stopped matching after %d entries; narrow the pattern", notesMaxWalkEntries)
			return errWalkLimit
		}
		rel := relSlash(ws, p)
		if rel == "." {
			return nil
		}
		parts := strings.Split(rel, "/")
		if d.IsDir() {
			if p == start {
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") || (len(parts) == 1 && slices.Contains(exampleOutputDirs, parts[0]) && segs[0] != parts[0]) {
				return fs.SkipDir
			}
			if maxDepth >= 0 && len(parts) >= maxDepth {
				return fs.SkipDir
			}
			return nil
		}
		if !matchSegments(segs, parts) {
			return nil
		}
		switch {
		case d.Type().IsRegular():
			matches = append(matches, rel)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := filepath.EvalSymlinks(p)
			if err != nil || !within(realWS, target) {
				c.warn("skipped %s: a link that leads outside the workspace", rel)
				return nil
			}
			if st, err := os.Stat(target); err == nil && st.Mode().IsRegular() {
				matches = append(matches, rel)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errWalkLimit) {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, fmt.Errorf("matching files: %w", err)
	}
	slices.Sort(matches)
	return matches, nil
}

// relSlash returns p relative to root with forward slashes.
func relSlash(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// readNote counts the file rel (slash path) of the workspace ws: bytes,
// lines (a last line without a newline counts), words (runs of
// non-space), and the first ATX heading outside front matter and fenced
// code. Files over notesMaxFileBytes and non-regular files are refused.
func readNote(ws, rel string) (noteStats, error) {
	f, err := os.Open(filepath.Join(ws, filepath.FromSlash(rel)))
	if err != nil {
		return noteStats{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return noteStats{}, err
	}
	if !st.Mode().IsRegular() {
		return noteStats{}, errors.New("not a regular file")
	}
	if st.Size() > notesMaxFileBytes {
		return noteStats{}, fmt.Errorf("%d bytes, over the %d-byte limit", st.Size(), notesMaxFileBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, notesMaxFileBytes+1))
	if err != nil {
		return noteStats{}, err
	}
	if len(b) > notesMaxFileBytes {
		return noteStats{}, fmt.Errorf("over the %d-byte limit", notesMaxFileBytes)
	}
	lines := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		lines++
	}
	return noteStats{
		Path: rel, Bytes: int64(len(b)), Lines: lines,
		Words: len(bytes.Fields(b)), FirstHeading: firstHeading(b),
	}, nil
}

// firstHeading returns the text of the first ATX heading ("# Title", up to
// three leading spaces, one to six #) in markdown b, skipping a leading
// YAML front matter block and fenced code; "" when there is none. Control
// characters are removed.
func firstHeading(b []byte) string {
	lines := strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	i := 0
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i = 1; i < len(lines); i++ {
			if t := strings.TrimSpace(lines[i]); t == "---" || t == "..." {
				i++
				break
			}
		}
		if i >= len(lines) { // unterminated: not front matter after all
			i = 0
		}
	}
	fence := ""
	for ; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) > 3 {
			continue
		}
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		n := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
		if n < 1 || n > 6 || (len(trimmed) > n && trimmed[n] != ' ' && trimmed[n] != '\t') {
			continue
		}
		text := strings.TrimSpace(trimmed[n:])
		if t := strings.TrimRight(text, "#"); t == "" || strings.HasSuffix(t, " ") {
			text = strings.TrimSpace(t)
		}
		return cleanText(text)
	}
	return ""
}

// notesMarkdown renders report.md.
func notesMarkdown(title, pattern, requestID string, files []noteStats, t noteTotals, table bool, inputJSON []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", mdEscape(cleanText(title)))
	fmt.Fprintf(&b, "%d %s matching %s in the workspace: **%d** words, **%d** lines, %s.\n\n",
		t.Files, words.Plural(t.Files, "file", "files"), mdCode(pattern), t.Words, t.Lines, humanBytes(t.Bytes))
	b.WriteString("## Files\n\n")
	if len(files) == 0 {
		b.WriteString("_No file matched._\n")
	}
	for _, f := range files {
		heading := "no heading"
		if f.FirstHeading != "" {
			heading = "first heading *" + mdEscape(f.FirstHeading) + "*"
		}
		fmt.Fprintf(&b, "- %s: %d %s, %d %s, %s\n", mdCode(f.Path), f.Words, words.Plural(f.Words, "word", "words"),
			f.Lines, words.Plural(f.Lines, "line", "lines"), heading)
	}
	if table {
		b.WriteString("\n## Table\n\n")
		b.WriteString("| File | Words | Lines | Bytes | First heading |\n")
		b.WriteString("| --- | ---: | ---: | ---: | --- |\n")
		for _, f := range files {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %s |\n", mdCell(mdCode(f.Path)), f.Words, f.Lines, f.Bytes, mdCell(mdEscape(f.FirstHeading)))
		}
		fmt.Fprintf(&b, "| **Total** | **%d** | **%d** | **%d** | |\n", t.Words, t.Lines, t.Bytes)
	}
	b.WriteString("\n## Request\n\nRun `notes.report` again with this input to refresh the report:\n\n")
	fence := mdFence(string(inputJSON))
	fmt.Fprintf(&b, "%sjson\n%s%s\n", fence, inputJSON, fence)
	fmt.Fprintf(&b, "\n---\n\n_Written by the notes example module for request %s._\n", mdCode(requestID))
	return b.Bytes()
}

// notesCSV renders files.csv: header path,bytes,lines,words,first_heading.
func notesCSV(files []noteStats) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"path", "bytes", "lines", "words", "first_heading"})
	for _, f := range files {
		_ = w.Write([]string{f.Path, strconv.FormatInt(f.Bytes, 10), strconv.Itoa(f.Lines), strconv.Itoa(f.Words), f.FirstHeading})
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// runNotesEcho is notes.echo: it returns the input verbatim and what the
// host supplied to this run (roots, grants, binaries, limits, extra request
// keys, the environment's variable names, the working directory), for
// debugging a host. It writes nothing.
func runNotesEcho(c *call) (any, error) {
	in, err := parseInput(c.req.Input, notesEchoRequest, nil)
	if err != nil {
		return nil, err
	}
	if v := in.raw("message"); v != nil {
		in.str("message", "", false)
		if err := in.check(); err != nil {
			return nil, err
		}
	}
	c.progress("echoing %d input %s", len(in.fields), words.Plural(len(in.fields), "field", "fields"))
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		env = append(env, name)
	}
	slices.Sort(env)
	cwd, _ := os.Getwd()
	extra := c.req.Extra
	if extra == nil {
		extra = map[string]json.RawMessage{}
	}
	return map[string]any{
		"input": in.fields,
		"host": map[string]any{
			"capability": c.req.Capability, "request_id": c.req.RequestID,
			"roots": c.req.Roots, "grants": c.req.Grants, "binaries": c.req.Binaries,
			"deadline_ms": c.req.DeadlineMS, "max_output_bytes": c.req.MaxOutputBytes,
			"extra": extra, "env": nonNil(env), "cwd": cwd,
		},
	}, nil
}

// nonNil returns s, or an empty slice for nil, so it marshals as [].
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
