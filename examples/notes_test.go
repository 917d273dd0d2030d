package examples

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"modbay/modproto"
)

// seededNotes returns a notes.report fixture whose workspace holds the demo
// seed files plus an earlier report and a saved copy of one (which "**"
// must skip).
func seededNotes(t *testing.T, input any) *fixture {
	t.Helper()
	f := newFixture(t, "notes", "notes.report", input)
	if err := seedWorkspace(f.workspace()); err != nil {
		t.Fatal(err)
	}
	f.write("reports/old/report.md", "# Old report\n")
	f.write("saved/report.md", "# A copy the person saved from the cockpit\n")
	f.write(".git/HEAD.md", "# not a note\n")
	return f
}

func TestNotesReport(t *testing.T) {
	f := seededNotes(t, map[string]any{"pattern": "**/*.md", "title": "All | my notes"})
	r := f.invoke()
	res := result(t, r)
	if res["files"] != 5.0 || res["matched"] != 5.0 || res["truncated"] != false {
		t.Fatalf("result %v: want 5 files (seed: welcome, ideas, 3 notes)", res)
	}
	if got := artifactIDs(r.env); !slices.Equal(got, []string{"report", "summary", "table"}) {
		t.Fatalf("artifacts %q", got)
	}
	d := describe(t, "notes")
	kinds := map[string]string{}
	for _, a := range r.env.Execution.Artifacts {
		kinds[a.ID] = a.Kind + " " + a.MediaType + " " + a.Presentation
		if a.Root != "workspace" || !strings.HasPrefix(a.Path, "reports/"+strings.TrimPrefix(f.req.RequestID, "req_")[20:]+"/") {
			t.Errorf("artifact %s at %s:%s", a.ID, a.Root, a.Path)
		}
	}
	want := map[string]string{
		"report":  "notes.report/v1 text/markdown markdown",
		"table":   "notes.table/v1 text/csv table",
		"summary": "notes.summary/v1 application/json json",
	}
	for k, v := range want {
		if kinds[k] != v {
			t.Errorf("artifact %s: %q, want %q", k, kinds[k], v)
		}
	}
	x := r.env.Execution
	if !x.Local || x.Network || x.ExternalWrites || x.Provider != "local" || x.EstimatedCost == nil || *x.EstimatedCost != 0 || x.ActualCost == nil || *x.ActualCost != 0 {
		t.Errorf("execution %+v: local, free", x)
	}
	if !strings.Contains(r.stderr, "reading notes/standup.md") {
		t.Errorf("stderr should show progress, got %q", r.stderr)
	}
	validateAgainst(t, d.ResultSchemas, notesReportResult, r.env.Result)

	var sum notesSummary
	summary := f.artifactData(r.env, "summary")
	validateAgainst(t, d.ArtifactSchemas, kindNotesSummary, summary)
	if err := json.Unmarshal(summary, &sum); err != nil {
		t.Fatal(err)
	}
	var paths []string
	byPath := map[string]noteStats{}
	for _, s := range sum.Files {
		paths = append(paths, s.Path)
		byPath[s.Path] = s
	}
	if !slices.Equal(paths, []string{"ideas.md", "notes/reading-list.md", "notes/recipes.md", "notes/standup.md", "welcome.md"}) {
		t.Errorf("files %q", paths)
	}
	if h := byPath["notes/standup.md"].FirstHeading; h != "Standup, Tuesday" {
		t.Errorf("standup heading %q (front matter must be skipped)", h)
	}
	if h := byPath["notes/recipes.md"].FirstHeading; h != "Lentil soup" {
		t.Errorf("recipes heading %q", h)
	}
	seed, _ := seedFS.ReadFile("seed/workspace/ideas.md")
	if s := byPath["ideas.md"]; s.Bytes != int64(len(seed)) || s.Lines != strings.Count(string(seed), "\n") || s.Words != len(strings.Fields(string(seed))) {
		t.Errorf("ideas.md counts %+v", s)
	}
	var total int64
	for _, s := range sum.Files {
		total += s.Bytes
	}
	if sum.Totals.Files != 5 || sum.Totals.Bytes != total || res["bytes"] != float64(total) {
		t.Errorf("totals %+v", sum.Totals)
	}

	rows, err := csv.NewReader(strings.NewReader(string(f.artifactData(r.env, "table")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 || strings.Join(rows[0], ",") != "path,bytes,lines,words,first_heading" {
		t.Errorf("csv rows %q", rows)
	}

	md := string(f.artifactData(r.env, "report"))
	for _, want := range []string{"# All \\| my notes\n", "## Files\n", "- `notes/standup.md`:", "| File | Words |", "```json\n", `"pattern": "**/*.md"`} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

func TestNotesReportDefaults(t *testing.T) {
	f := seededNotes(t, map[string]any{"include_table": false})
	r := f.invoke()
	res := result(t, r)
	if res["files"] != 2.0 {
		t.Errorf("default *.md covers the top folder only: %v", res)
	}
	if got := artifactIDs(r.env); !slices.Equal(got, []string{"report", "summary"}) {
		t.Errorf("include_table false: artifacts %q", got)
	}
	if md := string(f.artifactData(r.env, "report")); strings.Contains(md, "## Table") || !strings.Contains(md, "# Notes report\n") {
		t.Errorf("report.md:\n%s", md)
	}
}

func TestNotesReportTruncatesAndWarns(t *testing.T) {
	f := seededNotes(t, map[string]any{"pattern": "notes/*.md", "max_files": 2})
	r := f.invoke()
	res := result(t, r)
	if res["files"] != 2.0 || res["matched"] != 3.0 || res["truncated"] != true || len(r.env.Warnings) != 1 {
		t.Errorf("result %v warnings %q", res, r.env.Warnings)
	}
	f.setInput(map[string]any{"pattern": "nothing/*.md"})
	r = f.invoke()
	if res := result(t, r); res["files"] != 0.0 || len(r.env.Warnings) != 1 {
		t.Errorf("no match: %v %q", res, r.env.Warnings)
	}
}

func TestNotesReportConfinement(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("# secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pattern := range []string{"../*.md", "notes/../../*.md", "/etc/*.md", `C:\notes\*.md`, "**/../*.md"} {
		t.Run(pattern, func(t *testing.T) {
			f := seededNotes(t, map[string]any{"pattern": pattern})
			r := f.invoke()
			wantError(t, r, modproto.CodePathOutsideRoot, "pattern")
			if r.env.Error.Details["root"] != "workspace" {
				t.Errorf("details %v", r.env.Error.Details)
			}
		})
	}
	t.Run("symlinks", func(t *testing.T) {
		f := seededNotes(t, map[string]any{"pattern": "**/*.md"})
		ws := f.workspace()
		if err := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(ws, "leak.md")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(ws, "ideas.md"), filepath.Join(ws, "alias.md")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(ws, "outdir")); err != nil {
			t.Fatal(err)
		}
		r := f.invoke()
		sum := string(f.artifactData(r.env, "summary"))
		if strings.Contains(sum, "secret") || strings.Contains(sum, "leak.md") {
			t.Errorf("a link out of the workspace was read:\n%s", sum)
		}
		if !strings.Contains(sum, `"alias.md"`) {
			t.Errorf("a link inside the workspace should be read:\n%s", sum)
		}
		if !slices.ContainsFunc(r.env.Warnings, func(w string) bool { return strings.Contains(w, "leak.md") }) {
			t.Errorf("warnings %q should name the skipped link", r.env.Warnings)
		}
		if err := os.MkdirAll(filepath.Join(outside, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(outside, "sub", "deep.md"), []byte("# deep secret\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, pattern := range []string{"outdir/*.md", "outdir/sub/*.md", "outdir/**/*.md"} {
			f.setInput(map[string]any{"pattern": pattern})
			r := f.invoke()
			if r.env.OK {
				if sum := string(f.artifactData(r.env, "summary")); strings.Contains(sum, "secret") || strings.Contains(sum, "deep.md") {
					t.Errorf("%s: read through a link out of the workspace:\n%s", pattern, sum)
				}
			} else if r.env.Error.Code != modproto.CodePathOutsideRoot {
				t.Errorf("%s: %+v", pattern, r.env.Error)
			}
		}
	})
	t.Run("reports dir is a symlink", func(t *testing.T) {
		f := newFixture(t, "notes", "notes.report", map[string]any{})
		elsewhere := t.TempDir()
		if err := os.Symlink(elsewhere, filepath.Join(f.workspace(), "reports")); err != nil {
			t.Fatal(err)
		}
		wantError(t, f.invoke(), modproto.CodePathOutsideRoot, "")
		if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
			t.Errorf("something was written outside the workspace: %v", entries)
		}
	})
}

func TestNotesReportInvalidInput(t *testing.T) {
	for _, tc := range []struct {
		input map[string]any
		field string
	}{
		{map[string]any{"max_files": 0}, "max_files"},
		{map[string]any{"max_files": 201}, "max_files"},
		{map[string]any{"max_files": 2.5}, "max_files"},
		{map[string]any{"max_files": "ten"}, "max_files"},
		{map[string]any{"include_table": "yes"}, "include_table"},
		{map[string]any{"pattern": 7}, "pattern"},
		{map[string]any{"pattern": ""}, "pattern"},
		{map[string]any{"pattern": "notes/[.md"}, "pattern"},
		{map[string]any{"pattern": "notes/**"}, "pattern"},
		{map[string]any{"title": strings.Repeat("t", 201)}, "title"},
		{map[string]any{"colour": "red"}, "colour"},
	} {
		f := newFixture(t, "notes", "notes.report", tc.input)
		r := f.invoke()
		wantError(t, r, modproto.CodeInvalidRequest, tc.field)
		if r.env.Error.Details["schema"] != notesReportRequest {
			t.Errorf("%v: details %v should name the schema", tc.input, r.env.Error.Details)
		}
	}
	f := newFixture(t, "notes", "notes.report", map[string]any{})
	f.req.Input = json.RawMessage(`[1,2]`)
	wantError(t, f.invoke(), modproto.CodeInvalidRequest, "input")
	f = newFixture(t, "notes", "notes.report", map[string]any{})
	delete(f.req.Roots, "workspace")
	wantError(t, f.invoke(), codeMissingRoot, "")
	f = newFixture(t, "notes", "notes.report", map[string]any{})
	f.req.Roots["workspace"] = modproto.Root{Path: f.workspace(), Mode: modproto.RootReadOnly}
	wantError(t, f.invoke(), modproto.CodePermissionDenied, "")
}

func TestNotesEcho(t *testing.T) {
	f := newFixture(t, "notes", "notes.echo", map[string]any{"message": "hi", "n": 3})
	f.req.Grants.Network = []string{"example.com"}
	f.req.Binaries = map[string]string{"tool": "/usr/bin/tool"}
	f.req.Extra = map[string]json.RawMessage{"consent": json.RawMessage(`true`)}
	r := f.invoke()
	res := result(t, r)
	in := res["input"].(map[string]any)
	if in["message"] != "hi" || in["n"] != 3.0 {
		t.Errorf("input %v", in)
	}
	host := res["host"].(map[string]any)
	if host["request_id"] != f.req.RequestID || host["capability"] != "notes.echo" || host["deadline_ms"] != float64(modproto.DefaultDeadlineMS) {
		t.Errorf("host %v", host)
	}
	if host["extra"].(map[string]any)["consent"] != true {
		t.Errorf("extra %v", host["extra"])
	}
	if roots := host["roots"].(map[string]any); roots["workspace"].(map[string]any)["mode"] != "rw" {
		t.Errorf("roots %v", roots)
	}
	if len(r.env.Execution.Artifacts) != 0 {
		t.Errorf("echo writes nothing")
	}
	f.setInput(map[string]any{"message": 5})
	wantError(t, f.invoke(), modproto.CodeInvalidRequest, "message")
}

func TestFirstHeading(t *testing.T) {
	for in, want := range map[string]string{
		"# Title\n":                       "Title",
		"   ## Indented ##\n":             "Indented",
		"#NoSpace\n# Real\n":              "Real",
		"    # code\n# After\n":           "After",
		"```\n# in code\n```\n# Out\n":    "Out",
		"---\ntitle: x\n---\n# Body\n":    "Body",
		"---\nno end\n# H\n":              "H",
		"text only\n":                     "",
		"# C#\n":                          "C#",
		"# Esc\x1b[31mred\x1b[0m\n":       "Esc[31mred[0m",
		"####### seven\n###### six\n":     "six",
		"~~~\n# tilde code\n~~~\n# Z\r\n": "Z",
	} {
		if got := firstHeading([]byte(in)); got != want {
			t.Errorf("firstHeading(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatchSegments(t *testing.T) {
	for _, tc := range []struct {
		pat, name string
		want      bool
	}{
		{"*.md", "a.md", true},
		{"*.md", "notes/a.md", false},
		{"**/*.md", "a.md", true},
		{"**/*.md", "x/y/a.md", true},
		{"notes/**/*.md", "notes/a.md", true},
		{"notes/**/*.md", "other/a.md", false},
		{"notes/a.md", "notes/a.md", true},
		{"n?tes/*.csv", "notes/a.md", false},
	} {
		if got := matchSegments(strings.Split(tc.pat, "/"), strings.Split(tc.name, "/")); got != tc.want {
			t.Errorf("match(%q, %q) = %v", tc.pat, tc.name, got)
		}
	}
}
