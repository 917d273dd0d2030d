package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// skillsFixtures is the skills package's own fixture folder.
var skillsFixtures, _ = filepath.Abs("../skills/testdata/skills")

// TestSkillsList lists folder skills (from --skills) and the demo
// modules' skills and overlays, verified; --json carries both.
func TestSkillsList(t *testing.T) {
	home := demo(t)
	code, out, errb := run(t, "--home", home, "skills", "--skills", skillsFixtures)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"report-writer", "unusable", "3 warnings", "notes/notes-report", "module overlay", "ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "--home", home, "skills", "list", "--json", skillsFixtures)
	var j struct {
		Skills []struct {
			Key      struct{ Name string }
			Warnings []string
			Error    string
		}
		Modules []any
	}
	if code != 0 || json.Unmarshal([]byte(out), &j) != nil || len(j.Skills) != 4 || len(j.Modules) != 0 {
		t.Fatalf("list DIR --json: %d %s", code, out)
	}
}

// TestSkillsListDrifted: an edited module skill is listed as drifted with
// both digests in --json, and show refuses it.
func TestSkillsListDrifted(t *testing.T) {
	home := demo(t)
	p := filepath.Join(home, "modules", "notes", "skills", "notes-report", "SKILL.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, append(b, "\nInjected later.\n"...), 0o644)
	_, out, _ := run(t, "--home", home, "skills", "--json")
	var j struct {
		Modules []struct {
			Name, Status, Digest, ActualDigest string
		}
	}
	json.Unmarshal([]byte(out), &j)
	found := false
	for _, m := range j.Modules {
		if m.Name == "notes/notes-report" {
			found = true
			if m.Status != "drifted" || m.Digest == "" || m.ActualDigest == "" || m.Digest == m.ActualDigest {
				t.Errorf("drifted doc: %+v", m)
			}
		}
	}
	if !found {
		t.Fatalf("no notes/notes-report in %s", out)
	}
	code, out, errb := run(t, "--home", home, "skills", "show", "notes/notes-report")
	if code != ExitHostVerdict || strings.Contains(out, "Injected") || !strings.Contains(errb, "digest mismatch") {
		t.Errorf("show of a drifted skill: %d %q %q", code, out, errb)
	}
}

// TestSkillsShow renders with --arg, reports unknown placeholders and
// undeclared arguments, and --json gives the applied arguments.
func TestSkillsShow(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(skillsFixtures, "report-writer")
	code, out, errb := run(t, "--home", home, "skills", "show", dir, "--arg", "topic=cats", "--arg", "nope=1")
	if code != 0 || !strings.Contains(out, "# Report on cats") || !strings.Contains(out, "a plain tone") {
		t.Fatalf("show: %d %q %q", code, out, errb)
	}
	if !strings.Contains(errb, `"nope" is not declared`) || !strings.Contains(errb, "$ARGUMENTS {{ unknown_thing }}") {
		t.Errorf("stderr %q", errb)
	}
	code, out, _ = run(t, "--home", home, "skills", "render", dir, "--arg", "tone=dry", "--json")
	var j struct {
		Text             string
		AppliedArguments map[string]string
		Insert           string
	}
	if code != 0 || json.Unmarshal([]byte(out), &j) != nil || j.AppliedArguments["tone"] != "dry" || j.Insert != "user-message" || !strings.Contains(j.Text, "a dry tone") {
		t.Errorf("render --json: %d %s", code, out)
	}
	if code, _, _ := run(t, "--home", home, "skills", "show", "no-such-skill"); code != ExitUsage {
		t.Errorf("unknown skill: exit %d", code)
	}
	// A module's name alone: its documents are named in the error.
	if code, _, errb := run(t, "--home", home, "skills", "show", "notes"); code != ExitUsage || !strings.Contains(errb, "module notes has notes/notes-report, notes/notes-agent") {
		t.Errorf("a module's name: exit %d, %q", code, errb)
	}
	if code, _, _ := run(t, "--home", home, "skills", "show", dir, "--arg", "novalue"); code != ExitUsage {
		t.Errorf("bad --arg: exit %d", code)
	}
}

// TestSkillsShowSanitizes: a skill's escape sequences never reach the
// terminal.
func TestSkillsShowSanitizes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evil")
	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: evil\ndescription: \"Bad \\e]52;c;aGk=\\a\"\n---\nBody \x1b[2J\x1b]0;title\x07 end\n"), 0o644)
	_, out, errb := run(t, "--home", t.TempDir(), "skills", "show", dir)
	_, list, _ := run(t, "--home", t.TempDir(), "skills", "list", filepath.Dir(dir))
	for _, s := range []string{out, errb, list} {
		if strings.ContainsAny(s, "\x1b\x07") {
			t.Errorf("escape reached the terminal: %q", s)
		}
	}
}

// TestSkillsCheck: exit 1 when a skill is unusable or breaks a rule, 0
// when only notes remain; --json lists the problems.
func TestSkillsCheck(t *testing.T) {
	home := t.TempDir()
	code, out, _ := run(t, "--home", home, "skills", "check", skillsFixtures)
	if code != ExitModuleError || !strings.Contains(out, "FAIL  no-description") || !strings.Contains(out, "ok  report-writer") || !strings.Contains(out, "note: a byte-order mark") {
		t.Errorf("check folder: %d\n%s", code, out)
	}
	if code, out, _ := run(t, "--home", home, "skills", "validate", filepath.Join(skillsFixtures, "windows-file")); code != 0 {
		t.Errorf("notes only: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "--home", home, "skills", "check", "--json", filepath.Join(skillsFixtures, "other-name"))
	var j []struct {
		OK       bool
		Problems []struct{ Strict bool }
	}
	if code != ExitModuleError || json.Unmarshal([]byte(out), &j) != nil || len(j) != 1 || j[0].OK || len(j[0].Problems) != 3 {
		t.Errorf("check --json: %d %s", code, out)
	}
	if code, _, _ := run(t, "--home", home, "skills", "check", "/no/such/dir"); code != ExitUsage {
		t.Errorf("missing dir: exit %d", code)
	}
}

// TestSkillsRun: off unless the config enables scripts; then the script's
// exit code is the command's.
func TestSkillsRun(t *testing.T) {
	home := t.TempDir()
	src := filepath.Join(t.TempDir(), "runner")
	os.MkdirAll(filepath.Join(src, "scripts"), 0o755)
	os.WriteFile(filepath.Join(src, "SKILL.md"), []byte("---\nname: runner\ndescription: Runs.\n---\n"), 0o644)
	os.WriteFile(filepath.Join(src, "scripts", "count.sh"), []byte("echo \"words: $#\"\necho to stderr >&2\nexit 3\n"), 0o644)
	if code, _, errb := run(t, "--home", home, "skills", "run", src, "scripts/count.sh"); code != ExitUsage || !strings.Contains(errb, "running skill scripts is off") {
		t.Fatalf("scripts off: %d %s", code, errb)
	}
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("skills:\n  scripts: true\n"), 0o600)
	code, out, errb := run(t, "--home", home, "skills", "run", src, "scripts/count.sh", "x")
	if code != 3 || !strings.Contains(out, "words: 1") || !strings.Contains(errb, "to stderr") {
		t.Errorf("run: %d %q %q", code, out, errb)
	}
}

// TestSkillsPrompt composes what the agent sees, with loaded skills
// rendered, and writes it to a file with -o.
func TestSkillsPrompt(t *testing.T) {
	home := demo(t)
	code, out, errb := run(t, "--home", home, "--skills", skillsFixtures, "skills", "prompt", "--load", "report-writer", "--load", "notes/notes-agent", "--arg", "topic=cats")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"<available_skills>", "<name>notes/notes-report</name>", "<name>report-writer</name>", "## Active skills (2, ≈ ", "# Report on cats", "### notes/notes-agent"} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "<name>no-description</name>") || strings.Contains(out, "<name>notes/notes-agent</name>") {
		t.Errorf("an unusable skill or an overlay is in the catalog:\n%s", out)
	}
	file := filepath.Join(t.TempDir(), "agent.md")
	if code, _, errb := run(t, "--home", home, "skills", "prompt", "-o", file); code != 0 || !strings.Contains(errb, "0 loaded") {
		t.Fatalf("-o: %d %s", code, errb)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "None loaded.") {
		t.Errorf("file: %s", b)
	}
}

// TestSkillsListProjectWorkspace: with --workspace naming the project,
// the project's own skill is not said to be written by a module (who
// wrote it is not known), only that modules may write it.
func TestSkillsListProjectWorkspace(t *testing.T) {
	home := demo(t)
	proj := t.TempDir()
	dir := filepath.Join(proj, ".agents", "skills", "greet")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: greet\ndescription: Greets.\n---\nHello.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(proj)
	code, out, errb := run(t, "--home", home, "--workspace", proj, "skills", "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if !strings.Contains(out, "greet") || strings.Contains(out, "written by a module") || !strings.Contains(out, "project (modules may write it)") {
		t.Errorf("the project's skill is labelled untruly:\n%s", out)
	}
}
