package ui

import (
	tea "charm.land/bubbletea/v2"

	"modbay/runner"
	"modbay/ui/dialog"
	"modbay/ui/list"
)

// jumpTarget is where one jump entry goes: a module, or one of its
// capabilities (cap "" for the module itself).
type jumpTarget struct {
	mod *runner.Module
	cap string
}

// jumpEntries lists every module discovered and every capability a form
// opens for (an MCP server's tools among them), in the list's order.
func (m *Model) jumpEntries() ([]dialog.JumpEntry, []jumpTarget) {
	var es []dialog.JumpEntry
	var ts []jumpTarget
	for _, mod := range m.modules.modules {
		title := ""
		if d := mod.Descriptor; d != nil {
			title = d.Name
		}
		es = append(es, dialog.JumpEntry{ID: mod.ID, Title: title, Kind: "module"})
		ts = append(ts, jumpTarget{mod: mod})
		if mod.Descriptor == nil {
			continue
		}
		kind := "capability"
		if mod.EffectsAreHints {
			kind = "tool"
		}
		for _, c := range mod.Descriptor.Capabilities {
			if c.Hidden {
				continue
			}
			es = append(es, dialog.JumpEntry{ID: c.ID, Title: c.Title, Kind: kind + " of " + mod.ID})
			ts = append(ts, jumpTarget{mod: mod, cap: c.ID})
		}
	}
	return es, ts
}

// openJump opens the jump prompt over what discovery found.
func (m *Model) openJump() tea.Cmd {
	es, ts := m.jumpEntries()
	m.jumpTargets = ts
	m.dialogs = append(m.dialogs, dialog.NewJump(m.com, es))
	return nil
}

// jump goes where the jump prompt's entry i points: the module selected in
// the list, or its capability's form opened over its capability list
// (esc goes back as if the person had walked there).
func (m *Model) jump(i int) tea.Cmd {
	if i < 0 || i >= len(m.jumpTargets) {
		return nil
	}
	t := m.jumpTargets[i]
	m.jumpTargets = nil
	m.popTo(screenModules)
	m.modules.list.SelectWhere(func(it list.Item) bool { mi, ok := it.(*moduleItem); return ok && mi.m == t.mod })
	if t.cap == "" {
		return nil
	}
	cmd := m.open(screenCaps, t.mod)
	c, ok := m.top().(*capList)
	if !ok {
		return cmd
	}
	c.list.SelectWhere(func(it list.Item) bool { ci, ok := it.(*capItem); return ok && ci.cap.ID == t.cap })
	sel := c.Selected()
	if sel == nil || sel.ID != t.cap {
		return cmd
	}
	return tea.Batch(cmd, m.open(screenForm, formArg{module: t.mod, cap: *sel}))
}
