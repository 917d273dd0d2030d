package ui

import (
	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/internal/uitest"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestModuleListIsColumns(t *testing.T) {
	for _, w := range []int{60, 80, 120} {
		m, _ := newTest(t, nil, w, 24)
		withModules(t, m)
		lines := strings.Split(ansi.Strip(frame(t, m)), "\n")
		col := map[string]int{}
		for _, l := range lines {
			for _, name := range []string{"archive", "Echo Tools", "Fake Module", "zz-broken"} {
				if i := strings.Index(l, name); i >= 0 && (strings.Contains(l, "[ready]") || strings.Contains(l, "[needs setup]") || strings.Contains(l, "[disabled]") || strings.Contains(l, "[broken]")) {
					col[name] = ansi.StringWidth(l[:i])
				}
			}
		}
		if len(col) != 4 {
			t.Fatalf("width %d: found %d rows: %v", w, len(col), col)
		}
		for name, c := range col {
			if c != col["archive"] {
				t.Errorf("width %d: %s starts at %d, archive at %d (names not in a column)", w, name, c, col["archive"])
			}
		}
	}
}

func TestModuleDetailScrollsFromTheList(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	withModules(t, m)
	out := frame(t, m)
	if !strings.Contains(out, "↓ 25 more lines (pgdn)") || strings.Contains(out, "Permissions") {
		t.Fatalf("detail does not say that more is below:\n%s", out)
	}
	seen := ""
	for range 6 {
		press(m, "pgdown")
		seen += frame(t, m)
	}
	if sel := m.modules.Selected(); sel == nil || sel.ID != "fake" {
		t.Fatalf("pgdn moved the selection to %v", sel)
	}
	for _, want := range []string{"↑", "Permissions", "Subprocess", "Warnings (1)"} {
		if !strings.Contains(seen, want) {
			t.Errorf("scrolling the detail never showed %q", want)
		}
	}
	// The end says so: nothing below.
	if strings.Contains(frame(t, m), "(pgdn)") {
		t.Errorf("the end of the detail still says more is below:\n%s", frame(t, m))
	}
	// Another module starts its detail at the top.
	press(m, "up")
	if out := frame(t, m); !strings.Contains(out, "Echo Tools") || strings.Contains(out, "↑ ") {
		t.Fatalf("new selection does not show its detail from the top:\n%s", out)
	}
}

// TestTableColumnsKeepIDsWhole: in a narrow list pane the name gives way
// (down to minNameCol) so that ids up to minIDCol cells are not cut: the
// id is what a person types on the command line (a tester saw "fe…").
func TestTableColumnsKeepIDsWhole(t *testing.T) {
	// The widest of "Web fetch", "Workspace notes", "Render farm
	// (long-running)", "Media transcode", and of their ids.
	c := tableColumns(48, 13, len("Render farm (long-running)"), len("render-farm"))
	if c.id < len("render-farm") {
		t.Fatalf("id column %d cells cuts render-farm (name %d)", c.id, c.name)
	}
	if c.name < minNameCol {
		t.Fatalf("name column %d below %d", c.name, minNameCol)
	}
}

// TestRowReasonAbbreviatesTruthfully: a needs-setup reason too long for
// its column says what is needed by kind and name, not its first words;
// one that fits, or another status's, is the reason itself.
func TestRowReasonAbbreviatesTruthfully(t *testing.T) {
	f := false
	m := &runner.Module{Status: runner.StatusNeedsSetup, Reason: "binary ffmpeg: no ffmpeg on PATH; fake.report needs it to encode previews",
		Requirements: []runner.RequirementState{
			{Requirement: modproto.Requirement{Kind: "binary", Name: "ffmpeg", Available: &f}, State: runner.RequirementMissing},
			{Requirement: modproto.Requirement{Kind: "env", Name: "TOKEN\x1b[2J", Available: &f}, State: runner.RequirementMissing},
			{Requirement: modproto.Requirement{Kind: "binary", Name: "sh"}, State: runner.RequirementMet},
		}}
	if got := rowReason(m, 30); got != "needs binary ffmpeg, env TOKEN␛[2J" {
		t.Errorf("abbreviated: %q", got)
	}
	if got := rowReason(m, 200); got != m.Reason {
		t.Errorf("fits: %q", got)
	}
	m.Status = runner.StatusBroken
	if got := rowReason(m, 30); got != m.Reason {
		t.Errorf("broken: %q", got)
	}
}

// TestModuleDetailStatusLinesUp: the detail's status word starts in the
// value column, as Version and ID do, in colour and without.
func TestModuleDetailStatusLinesUp(t *testing.T) {
	for _, noColor := range []bool{true, false} {
		com := common.New(noColor)
		mod := uitest.Module(t)
		mod.Status, mod.Reason = runner.StatusReady, ""
		var idCol, statusCol int
		for _, l := range strings.Split(ansi.Strip(moduleDetail(com, mod, 80)), "\n") {
			switch {
			case strings.HasPrefix(l, "ID "):
				idCol = strings.Index(l, "fake")
			case strings.HasPrefix(l, "Status "):
				statusCol = strings.Index(l, "ready")
			}
		}
		if idCol <= 0 || statusCol != idCol {
			t.Errorf("noColor %v: status word at column %d, ID value at %d", noColor, statusCol, idCol)
		}
	}
}
