package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"modbay/history"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/formview"
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
	mod := m.flow.module
	if !ok || mod == nil {
		return nil
	}
	m.flow.rerunSeq++
	seq, ctx := m.flow.rerunSeq, m.ctx
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
	if msg.seq != m.flow.rerunSeq || m.flow.lastInput == nil {
		return nil
	}
	if msg.module == nil {
		if m.popTo(screenForm) {
			return m.submit(m.flow.lastInput, m.flow.lastUnchecked)
		}
		return nil
	}
	old, nu := msg.old, msg.module
	capID := m.flow.cap.ID
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
		// new descriptor (m.flow.module is now nu).
		return m.submit(m.flow.lastInput, m.flow.lastUnchecked)
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
	if _, ok := find[*formScreen](m); !ok {
		return open
	}
	input := m.flow.lastInput
	return tea.Batch(open, m.whenForm(func(f *formview.Model) tea.Cmd {
		notes := []string{"The module changed since this run: " + change + "; nothing ran. The last input is loaded."}
		if c.RequestSchema != "" && m.validate != nil {
			notes = append(notes, m.schemaFit(nu.Descriptor.RequestSchemas[c.RequestSchema], input,
				"The new schema cannot be read: ", "Against the new schema: ", "It fits the new schema: submit to run it."))
		}
		cmd, err := f.LoadInput(input, strings.Join(notes, " "))
		if err != nil {
			f.SetProblemNote(notes[0] + " The input does not fit the new form (" + render.SanitizeLine(err.Error()) + ").")
		}
		return cmd
	}))
}

// rerunFromResult re-runs the result on top from its record, when no
// form lies beneath it (a result reopened from the history).
func (m *Model) rerunFromResult() tea.Cmd {
	r := m.result()
	if r == nil || m.history == nil {
		return nil
	}
	return m.readRecord(r.res.RequestID, purposeRerun)
}

// rerunRecord opens the recorded run's form with its input as it was,
// checked against today's schema, the differences in the form's note.
func (m *Model) rerunRecord(rec *history.Record) tea.Cmd {
	hs, _ := find[*historyScreen](m)
	say := func(s string) tea.Cmd {
		if hs != nil {
			hs.note = s
		}
		return nil
	}
	mod := m.moduleForRecord(rec)
	if mod == nil || mod.Descriptor == nil {
		why := fmt.Sprintf("Cannot re-run: module %s is not installed now.", render.SanitizeLine(rec.Module))
		if rec.Repeat.Examples {
			why += " (a built-in example: start with --examples)"
		}
		return say(why)
	}
	c := mod.Descriptor.Capability(rec.Capability)
	if c == nil {
		return say(fmt.Sprintf("Cannot re-run: %s no longer has capability %s.", render.SanitizeLine(rec.Module), render.SanitizeLine(rec.Capability)))
	}
	if !rec.InputRecorded {
		return say("Cannot re-run with the same input: it was not recorded (" + render.SanitizeLine(rec.NoInputWhy()) + ").")
	}
	open := m.open(screenForm, formArg{module: mod, cap: *c})
	if _, ok := find[*formScreen](m); !ok {
		return open
	}
	input := history.WithoutRedacted(rec.Input, rec.Redacted)
	return tea.Batch(open, m.whenForm(func(f *formview.Model) tea.Cmd {
		notes := []string{"Re-run of " + rec.RunID + ": its input is loaded; ctrl+s runs it."}
		if len(rec.Redacted) > 0 {
			notes = append(notes, "Secret fields were not recorded; fill them in: "+render.SanitizeLine(strings.Join(rec.Redacted, ", "))+".")
		}
		if c.RequestSchema != "" && m.validate != nil {
			notes = append(notes, m.schemaFit(mod.Descriptor.RequestSchemas[c.RequestSchema], input,
				"Today's schema cannot be read: ", "Today's schema differs: ", "It still fits today's schema."))
		}
		cmd, err := f.LoadInput(input, strings.Join(notes, " "))
		if err != nil {
			f.SetNote("Re-run of " + rec.RunID + ": its input does not fit today's form (" + render.SanitizeLine(err.Error()) + ").")
			return nil
		}
		m.flow.rerunOf = rerunOf{id: rec.RunID, module: mod.ID, capability: c.ID}
		return cmd
	}))
}

// rerunOf is the recorded run the form was prefilled from, so the run it
// starts is recorded as its re-run.
type rerunOf struct{ id, module, capability string }

// schemaFit checks an earlier input against a request schema of today
// (r on a changed module, a re-run from history) and says the outcome in
// one sanitized sentence: unreadable+why, differs+each problem joined by
// "; ", or fits. m.validate must be set.
func (m *Model) schemaFit(sch, input json.RawMessage, unreadable, differs, fits string) string {
	v, err := m.validate(sch, input)
	switch {
	case err != nil:
		return unreadable + render.SanitizeLine(err.Error()) + "."
	case len(v) > 0:
		d := make([]string, 0, len(v))
		for _, e := range v {
			d = append(d, render.SanitizeLine(e.Error()))
		}
		return differs + strings.Join(d, "; ") + "."
	}
	return fits
}
