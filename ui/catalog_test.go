package ui

import (
	"strings"
	"testing"
	"time"

	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/common"
)

// catalogFake is a driver with a catalog (as an MCP server's); no other
// method is called by the detail pane.
type catalogFake struct {
	runner.Driver
	res, prompts, problems []string
}

func (c catalogFake) Catalog() (resources, prompts, problems []string) {
	return c.res, c.prompts, c.problems
}

func TestModuleDetailCatalog(t *testing.T) {
	com := common.New(true)
	m := &runner.Module{ID: "srv", Status: runner.StatusReady, Origin: "mcp",
		Descriptor: &modproto.Descriptor{Module: "srv", Name: "Server", Version: "1"},
		Driver: catalogFake{res: []string{"Read me — file:///readme.md · text/markdown", "evil \x1b]52;c;AAAA\x07 — x:"},
			prompts: []string{"review — Reviews a change. (diff*, tone)"}, problems: []string{"prompts/list: boom"}}}
	out := moduleDetail(com, m, 80)
	for _, want := range []string{"Resources (read-only)", "• Read me — file:///readme.md · text/markdown",
		"Prompts (read-only)", "• review — Reviews a change. (diff*, tone)", "! prompts/list: boom"} {
		if !strings.Contains(out, want) {
			t.Errorf("detail lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b]52") || strings.Contains(out, "\x07") {
		t.Errorf("a server's escape reached the detail pane:\n%q", out)
	}
	// A cached tool list says how old it is.
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	com.Now = func() time.Time { return now }
	m.Cached, m.DescribedAt = true, now.Add(-3*time.Minute)
	if out := moduleDetail(com, m, 80); !strings.Contains(out, "as of 3m ago (r lists them again)") {
		t.Errorf("cached list without its age:\n%s", out)
	}
	// A module without a catalog shows neither heading.
	m.Driver = nil
	if out := moduleDetail(com, m, 80); strings.Contains(out, "Resources") || strings.Contains(out, "Prompts") {
		t.Errorf("catalog headings without a catalog:\n%s", out)
	}
}

// TestCapDetailHintsApproval checks the capability pane's approval words
// for an MCP tool (docs/protocol.md §11, MCP tools): "cost unknown" never claims
// approval; the annotations decide. A process module's pane has no such
// line.
func TestCapDetailHintsApproval(t *testing.T) {
	com := common.New(true)
	m := &runner.Module{ID: "srv", EffectsAreHints: true, Descriptor: &modproto.Descriptor{Module: "srv"}}
	ro := modproto.Capability{ID: "echo", Effects: modproto.Effects{Local: true}}
	out := strings.Join(strings.Fields(capDetail(com, m, ro, &capSummary{raw: true}, 200)), " ")
	if !strings.Contains(out, "Approval runs at once: read-only, closed world") || !strings.Contains(out, "unknown cost alone does not ask") {
		t.Errorf("read-only closed-world tool:\n%s", out)
	}
	open := modproto.Capability{ID: "fetch", Effects: modproto.Effects{Network: true}}
	if out := strings.Join(strings.Fields(capDetail(com, m, open, &capSummary{raw: true}, 200)), " "); !strings.Contains(out, "Approval asks before it runs") {
		t.Errorf("open-world tool:\n%s", out)
	}
	m.EffectsAreHints = false
	if out := capDetail(com, m, ro, &capSummary{raw: true}, 200); strings.Contains(out, "Approval") {
		t.Errorf("a module's pane says the MCP rule:\n%s", out)
	}
}

// TestModuleDetailWorkspace: the permissions pane names the workspace
// root every module run gets read-write (docs/protocol.md §4), not only the
// requested Write list; an MCP server's pane does not.
func TestModuleDetailWorkspace(t *testing.T) {
	com := common.New(true)
	m := &runner.Module{ID: "m", Status: runner.StatusReady,
		Descriptor: &modproto.Descriptor{Module: "m", Name: "M", Version: "1",
			Permissions: modproto.Permissions{FilesystemWrite: []string{"output"}}}}
	out := moduleDetail(com, m, 100)
	if !strings.Contains(out[strings.Index(out, "Permissions"):], "rw, always supplied") {
		t.Errorf("permissions pane without the workspace:\n%s", out)
	}
	m.Origin = "mcp"
	if out := moduleDetail(com, m, 100); strings.Contains(out, "always supplied") {
		t.Errorf("an MCP server's pane claims the workspace:\n%s", out)
	}
}

// launchFake is a driver reached without an executable (as an MCP
// server's).
type launchFake struct {
	runner.Driver
	launch string
}

func (l launchFake) Launch() string { return l.launch }

// TestModuleDetailLaunch: a server's pane shows its command or URL,
// sanitized, where a process module shows its executable.
func TestModuleDetailLaunch(t *testing.T) {
	com := common.New(true)
	m := &runner.Module{ID: "srv", Status: runner.StatusReady, Origin: "mcp",
		Descriptor: &modproto.Descriptor{Module: "srv", Name: "Server", Version: "1"},
		Driver:     launchFake{launch: "npx -y srv\x1b]52;c;AAAA\x07"}}
	out := moduleDetail(com, m, 100)
	if !strings.Contains(out, "Command     npx -y srv") || strings.Contains(out, "Executable") || strings.Contains(out, "\x1b]52") {
		t.Errorf("stdio server:\n%q", out)
	}
	m.Driver = launchFake{launch: "https://mcp.example.com/mcp"}
	if out := moduleDetail(com, m, 100); !strings.Contains(out, "URL         https://mcp.example.com/mcp") {
		t.Errorf("remote server:\n%s", out)
	}
}
