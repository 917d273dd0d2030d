package ui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"modbay/render"
	"modbay/runner"
)

// changeChecker is a backend that can tell whether a module's files
// changed since it was described and describe it again (bypassing the
// describe cache); *runner.Host is one. r on a result uses it so a re-run
// never goes out with a stale descriptor.
type changeChecker interface {
	Changed(m *runner.Module) bool
	Redescribe(ctx context.Context, m *runner.Module) *runner.Module
}

var _ changeChecker = (*runner.Host)(nil)

// rerunCheckedMsg is the answer to r's check (seq: Model.rerunSeq):
// module is nil when the module did not change, else it described again.
type rerunCheckedMsg struct {
	seq    int
	old    *runner.Module
	module *runner.Module
}

// rerunChecked starts r's check of the form's module: a command that
// compares its files with what it was described from and, when they
// changed, describes it again. Nil when the backend cannot check (the
// re-run goes ahead as before).
func (m *Model) rerunChecked() tea.Cmd {
	cc, ok := m.backend.(changeChecker)
	mod := m.formModule
	if !ok || mod == nil {
		return nil
	}
	m.rerunSeq++
	seq, ctx := m.rerunSeq, m.ctx
	return func() tea.Msg {
		if !cc.Changed(mod) {
			return rerunCheckedMsg{seq: seq, old: mod}
		}
		return rerunCheckedMsg{seq: seq, old: mod, module: cc.Redescribe(ctx, mod)}
	}
}

// rerunAfterCheck re-runs the last input when the module is as it was
// described, or when it changed but not in the capability run; when the
// capability or its request schema changed (or the descriptor is now
// invalid), it says so on the capability's form, rebuilt for the new
// schema with the input loaded and checked against it, and runs nothing.
func (m *Model) rerunAfterCheck(msg rerunCheckedMsg) tea.Cmd {
	if msg.seq != m.rerunSeq || m.lastInput == nil {
		return nil
	}
	if msg.module == nil {
		if m.popTo(screenForm) {
			return m.submit(m.lastInput, m.lastUnchecked)
		}
		return nil
	}
	old, nu := msg.old, msg.module
	capID := m.formCap.ID
	if !m.popTo(screenForm) {
		return nil
	}
	if nu.Descriptor == nil || nu.Status == runner.StatusBroken {
		if f := m.form(); f != nil {
			f.SetProblemNote("The module changed since this run and its descriptor is now invalid: " + render.SanitizeLine(nu.Reason) + ". Nothing ran.")
		}
		return nil
	}
	change := capabilityChange(old.Descriptor, nu.Descriptor, capID)
	m.replaceModule(old, nu)
	if change == "" {
		// The module changed, this capability did not: run it with the
		// new descriptor (m.formModule is now nu).
		return m.submit(m.lastInput, m.lastUnchecked)
	}
	c := nu.Descriptor.Capability(capID)
	if c == nil {
		if f := m.form(); f != nil {
			f.SetProblemNote("The module changed since this run: " + change + ". Nothing ran.")
		}
		return nil
	}
	fs, _ := m.top().(*formScreen)
	open := m.replace(fs, screenForm, formArg{module: nu, cap: *c})
	f := m.form()
	if f == nil {
		return open
	}
	notes := []string{"The module changed since this run: " + change + "; nothing ran. The last input is loaded."}
	if c.RequestSchema != "" && m.validate != nil {
		notes = append(notes, m.schemaFit(nu.Descriptor.RequestSchemas[c.RequestSchema], m.lastInput,
			"The new schema cannot be read: ", "Against the new schema: ", "It fits the new schema: submit to run it."))
	}
	cmd, err := f.LoadInput(m.lastInput, strings.Join(notes, " "))
	if err != nil {
		f.SetProblemNote(notes[0] + " The input does not fit the new form (" + render.SanitizeLine(err.Error()) + ").")
	}
	return tea.Batch(open, cmd)
}
