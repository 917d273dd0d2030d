package runner

import (
	"path/filepath"
	"strings"

	"modbay/config"
)

// Globals are the global flags a command line modbay prints or copies
// carries so that, pasted in another shell (another directory, another
// HOME), it acts on what the printing process acted on: the home, the
// workspace and the built-in examples. A zero field is a flag left out.
type Globals struct {
	// Home is the absolute home, "" when it is config.DefaultHome.
	Home string `json:"home,omitempty"`
	// Workspace is the absolute workspace, "" when it is <home>/workspace.
	Workspace string `json:"workspace,omitempty"`
	// Examples adds --examples: the line runs a built-in example.
	Examples bool `json:"examples,omitempty"`
}

// GlobalsOf are the flags that name cfg's home and workspace (cfg as the
// host uses it, --workspace applied).
func GlobalsOf(cfg *config.Config) Globals {
	var g Globals
	if def, err := config.DefaultHome(); err != nil || filepath.Clean(def) != filepath.Clean(cfg.Home) {
		g.Home = cfg.Home
	}
	if filepath.Clean(cfg.Workspace) != filepath.Join(cfg.Home, "workspace") {
		g.Workspace = cfg.Workspace
	}
	return g
}

// For is g for a line that runs m: --examples when m is a built-in example.
func (g Globals) For(m *Module) Globals {
	g.Examples = m != nil && m.Origin == OriginExamples
	return g
}

// Line is the modbay command line of args (a subcommand and its words,
// each quoted for a POSIX shell by ShellQuote) with g's flags before the
// subcommand. It is the one builder of every line modbay prints or copies
// to be run again.
func (g Globals) Line(args ...string) string {
	words := []string{"modbay"}
	if g.Home != "" {
		words = append(words, "--home", ShellQuote(g.Home))
	}
	if g.Workspace != "" {
		words = append(words, "--workspace", ShellQuote(g.Workspace))
	}
	if g.Examples {
		words = append(words, "--examples")
	}
	for _, a := range args {
		words = append(words, ShellQuote(a))
	}
	return strings.Join(words, " ")
}

// Repeat are the Globals of lines that repeat this host's work (GlobalsOf
// its configuration).
func (h *Host) Repeat() Globals { return GlobalsOf(h.cfg) }

// RepeatNeedsYes is said beside a repeat line of a run that needed
// approval (docs/protocol.md §11). The line never carries --yes: an
// approval covers the effects a person saw for that call, and a pasted
// line would approve whatever the module asks when it runs again.
const RepeatNeedsYes = "this run needed approval: as printed it stops before running (exit 3) and says why; add --yes to approve"
