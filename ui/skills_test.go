package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/config"
	"modbay/runner"
	"modbay/skills"
	"modbay/ui/common"
	"modbay/ui/viewer"
)

func init() {
	helpStates[screenSkills] = []helpState{
		{"list", func(t *testing.T) *Model { return openSkills(t, 80, 24) }},
		{"active", func(t *testing.T) *Model {
			m := openSkills(t, 80, 24)
			press(m, "down", "down", "down", "space")
			return m
		}},
		{"filter typing", func(t *testing.T) *Model {
			m := openSkills(t, 80, 24)
			press(m, "/")
			typeText(m, "rep")
			return m
		}},
	}
}

// skillsFixture is what a load of the skills fixtures finds: the
// project's own SKILL.md folders (skills/testdata), shown under a fixed
// location so frames are the same everywhere, a module skill, an overlay
// and a drifted module skill.
func skillsFixture(t *testing.T, to *skillsScreen) skillsLoadedMsg {
	t.Helper()
	var cat skills.Catalog
	for _, name := range []string{"report-writer", "other-name", "no-description", "windows-file"} {
		r, _ := skills.Index(filepath.Join("..", "skills", "testdata", "skills", name))
		r.Key.Location = "/home/u/.agents/skills/" + name
		r.Source = skills.SourceHome
		cat.Skills = append(cat.Skills, r)
	}
	cat.Skills[3].ModuleWritable = true
	declared := "sha256:" + strings.Repeat("a", 64)
	actual := "sha256:" + strings.Repeat("b", 64)
	docs := []docState{
		{doc: skills.Doc{Module: "notes", Kind: skills.KindSkill, ID: "notes-report", Title: "Writing notes reports", Summary: "When to run notes.report.", Path: "skills/notes-report/SKILL.md", Digest: declared, Tokens: 354}, size: 1416},
		{doc: skills.Doc{Module: "notes", Kind: skills.KindOverlay, ID: "notes-agent", Title: "Workspace notes: agent guidance", Path: "agents/notes-agent.md", Digest: declared}, size: 488},
		{doc: skills.Doc{Module: "fetch", Kind: skills.KindSkill, ID: "web-fetch", Title: "Fetching pages", Path: "skills/web-fetch/SKILL.md", Digest: declared, Tokens: 317},
			err: &skills.DriftError{Path: "skills/web-fetch/SKILL.md", Declared: declared, Actual: actual}},
	}
	return skillsLoadedMsg{to: to, catalog: cat, docs: docs}
}

// openSkills opens the skills screen from the module list with "s" and
// feeds it the fixture load.
func openSkills(t *testing.T, w, h int) *Model {
	t.Helper()
	m, _ := newTest(t, nil, w, h)
	withModules(t, m)
	press(m, "s")
	s, ok := m.top().(*skillsScreen)
	if !ok {
		t.Fatalf("s opened %v, want skills", m.screen())
	}
	m.Update(skillsFixture(t, s))
	return m
}

func TestGoldenSkills(t *testing.T) {
	each(t, func(t *testing.T, w, h int) {
		m := openSkills(t, w, h)
		golden.RequireEqual(t, []byte(frame(t, m)))
	})
}

// TestGoldenSkillsColumns: the skills list is columned like the module
// list: every row's status and source start where the others' do, and
// the description is shown where the width allows, at 80 and 200.
func TestGoldenSkillsColumns(t *testing.T) {
	for _, s := range []struct{ w, h int }{{80, 24}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", s.w, s.h), func(t *testing.T) {
			m := openSkills(t, s.w, s.h)
			out := frame(t, m)
			rows := strings.Split(ansi.Strip(out), "\n")[1:8]
			col := func(row, cell string) int {
				i := strings.Index(row, cell)
				if i < 0 {
					t.Fatalf("%q lacks %q:\n%s", row, cell, ansi.Strip(out))
				}
				return common.Width(row[:i])
			}
			status := []string{"354 tokens", "≈ 122 tokens", "✗ drifted", "≈ 191 tokens", "! 3 warnings", "✗ unusable", "! 1 warning"}
			source := []string{"module skill", "module overlay", "module skill", "home", "home", "home", "home, modules"}
			for i, row := range rows {
				if col(row, status[i]) != col(rows[0], status[0]) || col(row, source[i]) != col(rows[0], source[0]) {
					t.Errorf("row %d is not in the columns:\n%s", i, strings.Join(rows, "\n"))
				}
			}
			if !strings.Contains(rows[0], "When to run notes.report.") {
				t.Errorf("no description column at %d:\n%s", s.w, strings.Join(rows, "\n"))
			}
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// TestGoldenSkillsDrifted shows a drifted module skill: refused, both
// digests.
func TestGoldenSkillsDrifted(t *testing.T) {
	m := openSkills(t, 100, 30)
	press(m, "down", "down")
	out := frame(t, m)
	plain := ansi.Strip(out)
	for _, want := range []string{"✗ drifted", "Refused: the file changed", "sha256:" + strings.Repeat("a", 20), "sha256:" + strings.Repeat("b", 20)} {
		if !strings.Contains(plain, want) {
			t.Errorf("drifted detail lacks %q:\n%s", want, plain)
		}
	}
	golden.RequireEqual(t, []byte(out))
	// enter re-checks the file: it still does not match, so nothing opens.
	_, cmd := m.Update(keyPress("enter"))
	m.Update(skillOpenMsg{to: m.top().(*skillsScreen), err: errors.New("skills/web-fetch/SKILL.md: digest mismatch")})
	if cmd == nil || m.screen() != screenSkills || !strings.Contains(ansi.Strip(frame(t, m)), "digest mismatch") {
		t.Errorf("a drifted skill opened or was not refused (screen %v)", m.screen())
	}
}

// TestSkillsOpenRendered: enter on a folder skill renders its body with
// the arguments' defaults into a file and opens it in the markdown viewer;
// esc comes back.
func TestSkillsOpenRendered(t *testing.T) {
	m := openSkills(t, 100, 30)
	press(m, "down", "down", "down")
	if it, ok := m.top().(*skillsScreen).list.Selected().(*folderItem); !ok || it.r.Name != "report-writer" {
		t.Fatalf("selected %v", m.top().(*skillsScreen).list.Selected())
	}
	_, cmd := m.Update(keyPress("enter"))
	if cmd == nil {
		t.Fatal("enter did nothing")
	}
	msg := cmd()
	open, ok := msg.(skillOpenMsg)
	if !ok || open.err != nil {
		t.Fatalf("render: %#v", msg)
	}
	_, cmd = m.Update(open)
	if m.screen() != screenViewer || m.top().Crumb(true) != "skill" {
		t.Fatalf("screen %v, want the viewer", m.screen())
	}
	runCmds(m, cmd)
	out := ansi.Strip(frame(t, m))
	if !strings.Contains(out, "Report on") || !strings.Contains(out, "plain tone") || strings.Contains(out, "name: report-writer") {
		t.Errorf("viewer frame:\n%s", out)
	}
	press(m, "esc")
	if m.screen() != screenSkills {
		t.Errorf("esc: screen %v", m.screen())
	}
}

// TestSkillsLoadReal runs the screen's own load over a real folder and a
// module whose document drifted.
func TestSkillsLoadReal(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	m.opts.SkillFolders = []skills.Folder{{Path: filepath.Join("..", "skills", "testdata", "skills"), Source: skills.SourceFlag}}
	withModules(t, m)
	_, cmd := m.Update(keyPress("s"))
	if cmd == nil {
		t.Fatal("no load")
	}
	msg, ok := cmd().(skillsLoadedMsg)
	if !ok || len(msg.catalog.Skills) != 4 {
		t.Fatalf("load: %#v", msg)
	}
	m.Update(msg)
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "report-writer") || !strings.Contains(out, "unusable") {
		t.Errorf("frame:\n%s", out)
	}
}

// TestSkillsSanitized: a skill's escape sequences never reach the frame.
func TestSkillsSanitized(t *testing.T) {
	m := openSkills(t, 80, 24)
	s := m.top().(*skillsScreen)
	msg := skillsFixture(t, s)
	msg.catalog.Skills[0].Key.Name = "evil\x1b]52;c;aGk=\x07"
	msg.catalog.Skills[0].Description = "desc \x1b[2J"
	msg.docs = nil
	m.Update(msg)
	out := frame(t, m)
	if strings.Contains(out, "\x1b]52") || strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x07") || !strings.Contains(out, "␛]52") {
		t.Errorf("escape reached the frame: %q", out)
	}
}

// runCmds runs cmd and feeds every message it yields back, recursively
// (batches included), until none is left.
func runCmds(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			runCmds(m, c)
		}
	case nil:
	default:
		_, next := m.Update(msg)
		runCmds(m, next)
	}
}

// TestSkillsSession: space loads the selected skill into the session
// (marked, the panel counts it with its tokens) and unloads it again; x
// unloads all; w opens what the agent sees in the viewer: the catalog
// block and the active skill's rendered text.
func TestSkillsSession(t *testing.T) {
	m := openSkills(t, 100, 30)
	press(m, "down", "down", "down", "space")
	out := ansi.Strip(frame(t, m))
	if !strings.Contains(out, "● 1 active skill · ≈ ") || !strings.Contains(out, "● report-writer") || !slices.ContainsFunc(m.top().ShortHelp(), func(b key.Binding) bool { return b.Help().Desc == "unload all" }) {
		t.Fatalf("after space:\n%s", out)
	}
	golden.RequireEqual(t, []byte(frame(t, m)))
	press(m, "space")
	if len(m.skillSession.Handles()) != 0 {
		t.Fatal("space did not unload")
	}
	press(m, "space", "down", "down", "space")
	if n := len(m.skillSession.Handles()); n != 1 || !strings.Contains(ansi.Strip(frame(t, m)), "is unusable") {
		t.Fatalf("an unusable skill loaded: %d active", n)
	}
	press(m, "x")
	if len(m.skillSession.Handles()) != 0 {
		t.Fatal("x did not unload all")
	}
	press(m, "up", "space")
	_, cmd := m.Update(keyPress("w"))
	if cmd == nil {
		t.Fatal("w did nothing")
	}
	open, _ := cmd().(skillOpenMsg)
	b, err := os.ReadFile(open.file.path)
	if err != nil || !strings.Contains(string(b), "## Active skills (1, ≈ ") || !strings.Contains(string(b), "<name>notes/notes-report</name>") || strings.Contains(string(b), "<name>fetch/web-fetch</name>") {
		t.Fatalf("composed file (%v):\n%s", err, b)
	}
	_, cmd = m.Update(open)
	if m.screen() != screenViewer {
		t.Fatalf("screen %v, want the viewer", m.screen())
	}
	runCmds(m, cmd)
	out = ansi.Strip(frame(t, m))
	for _, want := range []string{"What the agent sees", "available_skills"} {
		if !strings.Contains(out, want) {
			t.Errorf("what the agent sees lacks %q:\n%s", want, out)
		}
	}
	press(m, "esc")
	press(m, "esc")
	if len(m.skillSession.Handles()) != 1 {
		t.Error("the session did not outlive the skills screen")
	}
}

// TestSkillsLoadModuleDocChecked: loading a module document reads and
// checks it again; a drifted one is refused, not loaded.
func TestSkillsLoadModuleDocChecked(t *testing.T) {
	m := openSkills(t, 100, 30)
	s := m.top().(*skillsScreen)
	press(m, "down", "down", "space")
	m.Update(skillActivatedMsg{to: s, err: errors.New("skills/web-fetch/SKILL.md: digest mismatch")})
	if len(m.skillSession.Handles()) != 0 || !strings.Contains(ansi.Strip(frame(t, m)), "digest mismatch") {
		t.Error("a drifted module skill was loaded")
	}
	m.Update(skillActivatedMsg{to: s, active: skills.Active{Handle: skills.Handle{Name: "notes/notes-report", Location: ""}, Text: "x", Tokens: 354, Declared: true}})
	if out := ansi.Strip(frame(t, m)); !strings.Contains(out, "● 1 active skill · 354 tokens") || !strings.Contains(out, "● notes/notes-report") {
		t.Errorf("module skill loaded:\n%s", out)
	}
}

// TestSkillDetailFrontmatter: the detail lists every frontmatter key as
// parsed, unknown ones too, sanitized.
func TestSkillDetailFrontmatter(t *testing.T) {
	m := openSkills(t, 100, 30)
	s := m.top().(*skillsScreen)
	var items []*folderItem
	for _, it := range s.list.Items() {
		if f, ok := it.(*folderItem); ok {
			items = append(items, f)
		}
	}
	d := ansi.Strip(items[0].Detail(80))
	for _, want := range []string{"Frontmatter", "license     MIT", "allowed-to… Read Grep", `metadata    {"author":"modbay","version":"1.0"}`, `tags        ["notes","reports"]`} {
		if !strings.Contains(d, want) {
			t.Errorf("detail lacks %q:\n%s", want, d)
		}
	}
	if d := ansi.Strip(items[1].Detail(80)); !strings.Contains(d, "type        technique") {
		t.Errorf("unknown key not shown:\n%s", d)
	}
}

// TestRenderedSkillsStayInHome: a cockpit over a real host writes the
// skills it renders for the viewer under the home (<home>/cache), never
// into the person's user cache or anywhere else outside the home.
func TestRenderedSkillsStayInHome(t *testing.T) {
	outside := t.TempDir()
	t.Setenv("HOME", outside)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(outside, ".cache"))
	home := t.TempDir()
	cfg, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	m := New(runner.NewHost(cfg), Options{NoColor: true})
	m.viewerEnv = viewer.Env{}
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	withModules(t, m)
	press(m, "s")
	s, ok := m.top().(*skillsScreen)
	if !ok {
		t.Fatalf("s opened %v, want skills", m.screen())
	}
	m.Update(skillsFixture(t, s))
	press(m, "down", "down", "down")
	_, cmd := m.Update(keyPress("enter"))
	if cmd == nil {
		t.Fatal("enter did nothing")
	}
	open, ok := cmd().(skillOpenMsg)
	if !ok || open.err != nil {
		t.Fatalf("render: %#v", open)
	}
	if !strings.HasPrefix(open.file.path, filepath.Join(home, "cache")+"/") {
		t.Errorf("rendered skill written to %s, outside the home's cache", open.file.path)
	}
	if err := filepath.WalkDir(outside, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != outside {
			t.Errorf("written outside the home: %s", p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}
