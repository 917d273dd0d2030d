package ui

import (
	"context"
	"errors"
	"strings"

	tea "charm.land/bubbletea/v2"

	"modbay/config"
	"modbay/skills"
)

// Reloaded is what reading the home's config.yaml again gives the cockpit
// (Options.Reload): a backend built from the new config (binaries, roots,
// sandbox, limits, mcp_servers, policy) and what the options derived from
// it. Runs already started finish on the backend that planned them.
type Reloaded struct {
	// Backend is the host for the new config; *runner.Host is one.
	Backend Backend
	// Workspace is the new config's workspace root (absolute).
	Workspace string
	// Banner replaces Options.Banner ("" for none).
	Banner string
	// SkillFolders, SkillWritableRoots and RunSkillScript replace the
	// options of the same names.
	SkillFolders       []skills.Folder
	SkillWritableRoots []string
	RunSkillScript     func(ctx context.Context, dir, loc string) (skills.ScriptResult, error)
}

// configReloadedMsg is the answer to reload number seq: the new config's
// backend and options, or why config.yaml was not taken (the previous one
// stays).
type configReloadedMsg struct {
	seq int
	r   *Reloaded
	err error
}

// reload is what r on the module list does: read config.yaml again through
// Options.Reload (in a command: it reads a file and may start nothing
// else), then rediscover with whatever config holds. Without Reload it only
// rediscovers.
func (m *Model) reload() tea.Cmd {
	if m.opts.Reload == nil {
		return m.discoverWith(m.opts.Refresh)
	}
	m.reloadSeq++
	seq, ctx, reload := m.reloadSeq, m.ctx, m.opts.Reload
	m.modules.discovering = true
	return tea.Batch(m.spinner.Tick, func() tea.Msg {
		r, err := reload(ctx)
		if err == nil && (r == nil || r.Backend == nil) {
			err = errors.New("the reload gave no module host")
		}
		return configReloadedMsg{seq: seq, r: r, err: err}
	})
}

// reloaded takes the new config's backend and options, or keeps the
// previous ones and says why on the module list; either way it
// rediscovers. An answer to an older r is dropped.
func (m *Model) reloaded(msg configReloadedMsg) tea.Cmd {
	if msg.seq != m.reloadSeq {
		return nil
	}
	if msg.err != nil {
		m.modules.configNote = "config.yaml not reloaded, the previous config stays: " + reloadErrorLine(msg.err)
		return m.discoverWith(m.opts.Refresh)
	}
	r := msg.r
	m.modules.configNote = ""
	m.backend, m.workspace = r.Backend, r.Workspace
	m.opts.Banner, m.modules.banner = r.Banner, r.Banner
	m.opts.SkillFolders, m.opts.SkillWritableRoots, m.opts.RunSkillScript = r.SkillFolders, r.SkillWritableRoots, r.RunSkillScript
	m.layout()
	return m.discoverWith(m.opts.Refresh)
}

// reloadErrorLine is err on one line: "<file>:<line>:<column>: <problem>"
// for a config.yaml that does not load, else the error's first line.
func reloadErrorLine(err error) string {
	var fe *config.FileError
	if errors.As(err, &fe) {
		return fe.Short()
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	return first
}
