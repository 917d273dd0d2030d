package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/fsnotify/fsnotify"

	"modbay/internal/words"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
)

// devDebounce is how long the watched files must stay quiet before the
// module is described again: an editor's save is several events (write,
// rename, chmod) within a few milliseconds.
const devDebounce = 150 * time.Millisecond

// maxDevWatchDirs bounds the directories a dev session watches: the
// module's directory, the launcher's, and their subdirectories breadth
// first (a module's source tree is small; a vendored tree is not walked).
const maxDevWatchDirs = 32

// maxDevChanges bounds the descriptor changes a notice lists.
const maxDevChanges = 12

// maxDevLint bounds the schema findings a dev module's warnings list;
// `modbay validate` lists them all.
const maxDevLint = 20

// devSkipDirs are directories never watched: caches and metadata that
// change when the module runs, not when its author edits it.
var devSkipDirs = map[string]bool{"__pycache__": true, "node_modules": true, ".git": true, "target": true, ".venv": true, "venv": true}

// devLoader is a backend that can load one module by path and describe it
// again bypassing the describe cache; *runner.Host is one. `modbay dev`
// needs it.
type devLoader interface {
	Load(ctx context.Context, ref string) (*runner.Module, error)
	Redescribe(ctx context.Context, m *runner.Module) *runner.Module
}

var _ devLoader = (*runner.Host)(nil)

// devState is a dev session's (Options.Dev): the watcher and what the
// last re-describe found.
type devState struct {
	// path is the module's executable, as Options.Dev gave it.
	path string
	// watch delivers debounced changes; nil until started (or when
	// watching failed: err says why).
	watch *devWatch
	err   error
	// seq numbers re-describes, so a stale one is dropped.
	seq int
	// notice is the last re-describe's outcome, shown on the module list
	// and as the header's badge; changes its descriptor diff.
	notice  string
	changes []string
	// invalid is set while the module's current describe fails: the
	// screens keep the last valid descriptor.
	invalid bool
}

// Messages of a dev session.
type (
	// devLoadedMsg is the first describe of the dev module.
	devLoadedMsg struct {
		gen    int
		module *runner.Module
		err    error
		watch  *devWatch
		werr   error
	}
	// devChangedMsg says the watched files changed (names: their base
	// names, bounded).
	devChangedMsg struct{ names []string }
	// devDescribedMsg is a re-describe after a change.
	devDescribedMsg struct {
		seq    int
		module *runner.Module
		names  []string
	}
)

// devDiscover loads the dev module (its describe cache bypassed) and
// starts watching its files; the module list shows only it.
func (m *Model) devDiscover(gen int) tea.Cmd {
	dl, ok := m.backend.(devLoader)
	path, ctx := m.dev.path, m.ctx
	if !ok {
		return func() tea.Msg {
			return devLoadedMsg{gen: gen, err: fmt.Errorf("this backend cannot load %s", path)}
		}
	}
	started := m.dev.watch != nil
	return func() tea.Msg {
		mod, err := dl.Load(ctx, path)
		if err == nil && mod.Cached {
			mod = dl.Redescribe(ctx, mod)
		}
		if err == nil {
			devLint(ctx, mod, path)
		}
		msg := devLoadedMsg{gen: gen, module: mod, err: err}
		if err == nil && !started {
			msg.watch, msg.werr = newDevWatch(devWatchDirs(mod))
		}
		return msg
	}
}

// devLoaded shows the dev module and starts waiting for changes.
func (m *Model) devLoaded(msg devLoadedMsg) tea.Cmd {
	if msg.watch != nil {
		if m.dev.watch != nil {
			msg.watch.Close()
		} else {
			m.dev.watch = msg.watch
		}
	}
	if msg.werr != nil {
		m.dev.err = msg.werr
		m.dev.notice = "dev: not watching: " + msg.werr.Error()
	}
	if msg.gen != m.gen {
		return m.devNext()
	}
	var mods []*runner.Module
	if msg.module != nil {
		mods = append(mods, msg.module)
	}
	if msg.err != nil {
		m.dev.notice = "dev: " + msg.err.Error()
	} else if m.dev.notice == "" {
		m.dev.notice = "dev: watching " + msg.module.Dir + "; the module is described again when its files change."
	}
	m.modules.banner = m.dev.notice
	m.modules.SetModules(mods)
	m.layout()
	return m.devNext()
}

// devNext waits for the watcher's next debounced change.
func (m *Model) devNext() tea.Cmd {
	w := m.dev.watch
	if w == nil {
		return nil
	}
	return func() tea.Msg {
		names, ok := <-w.changes
		if !ok {
			return nil
		}
		return devChangedMsg{names: names}
	}
}

// devChanged describes the dev module again, bypassing the cache.
func (m *Model) devChanged(msg devChangedMsg) tea.Cmd {
	cur := m.devModule()
	dl, ok := m.backend.(devLoader)
	if cur == nil || !ok {
		return m.devNext()
	}
	m.dev.seq++
	seq, ctx := m.dev.seq, m.ctx
	path := m.dev.path
	return tea.Batch(m.devNext(), func() tea.Msg {
		mod := dl.Redescribe(ctx, cur)
		devLint(ctx, mod, path)
		return devDescribedMsg{seq: seq, module: mod, names: msg.names}
	})
}

// devLint adds the request schemas' lint findings to a freshly described
// dev module's warnings (at most maxDevLint, then how many more), so the
// detail pane shows what `modbay validate` would: a misspelled keyword
// that silently drops a bound, a keyword outside a provider's subset.
func devLint(ctx context.Context, mod *runner.Module, path string) {
	fs := runner.LintRequestSchemas(ctx, mod)
	if len(fs) == 0 {
		return
	}
	w := slices.Clip(mod.Warnings)
	for i, f := range fs {
		if i == maxDevLint {
			w = append(w, fmt.Sprintf("and %d more request schema findings: modbay validate %s lists them all", len(fs)-i, runner.ShellQuote(path)))
			break
		}
		w = append(w, "request schema: "+f.String())
	}
	mod.Warnings = w
}

// devModule is the dev module as the screens know it: the last one
// described with a valid descriptor (the list's only module).
func (m *Model) devModule() *runner.Module {
	if len(m.modules.modules) == 0 {
		return nil
	}
	return m.modules.modules[0]
}

// devDescribed applies a re-describe: a valid descriptor replaces the
// module everywhere the screens hold it (the list, the capability list,
// the form's planning) and the notice lists what changed; an invalid one
// leaves every screen as it was and the notice gives the verdict.
func (m *Model) devDescribed(msg devDescribedMsg) tea.Cmd {
	if msg.seq != m.dev.seq {
		return nil
	}
	old := m.devModule()
	nu := msg.module
	at := m.com.Now().Format("15:04:05")
	what := strings.Join(msg.names, ", ")
	if nu.Descriptor == nil || nu.Status == runner.StatusBroken {
		m.dev.invalid = true
		m.dev.changes = nil
		m.dev.notice = fmt.Sprintf("dev %s: %s changed; the descriptor is now invalid: %s. The screens keep the last valid descriptor.", at, what, nu.Reason)
		m.modules.banner = m.dev.notice
		m.layout()
		return nil
	}
	wasInvalid := m.dev.invalid
	m.dev.invalid = false
	var oldD *modproto.Descriptor
	if old != nil && old.Status != runner.StatusBroken {
		oldD = old.Descriptor
	}
	m.dev.changes = descriptorChanges(oldD, nu.Descriptor)
	changed := strings.Join(m.dev.changes, "; ")
	switch {
	case oldD == nil:
		// Refused since dev started: there is no valid descriptor to diff.
		m.dev.changes = nil
		m.dev.notice = fmt.Sprintf("dev %s: %s changed; the descriptor is now valid (%s).", at, what, nu.Status)
	case wasInvalid && len(m.dev.changes) == 0:
		m.dev.notice = fmt.Sprintf("dev %s: %s changed; the descriptor is valid again (%s), the same as the last valid one.", at, what, nu.Status)
	case wasInvalid:
		m.dev.notice = fmt.Sprintf("dev %s: %s changed; the descriptor is valid again (%s); since the last valid one: %s.", at, what, nu.Status, changed)
	case len(m.dev.changes) == 0:
		m.dev.notice = fmt.Sprintf("dev %s: %s changed; described again: the descriptor is the same.", at, what)
	default:
		m.dev.notice = fmt.Sprintf("dev %s: %s changed; the descriptor changed: %s.", at, what, changed)
	}
	m.modules.banner = m.dev.notice
	m.replaceModule(old, nu)
	cmd := m.refreshForms(old, nu)
	m.layout()
	return cmd
}

// refreshForms rebuilds each open form of old's capabilities whose request
// schema nu changed, for the new schema, keeping the values that still
// fit (the members the new schema still has as properties; LoadInput then
// marks what it refuses) and saying which were dropped. A form whose
// schema is the same keeps its state; replaceModule already moved it to nu.
func (m *Model) refreshForms(old, nu *runner.Module) tea.Cmd {
	if old == nil || old.Descriptor == nil {
		return nil
	}
	var cmds []tea.Cmd
	for i, s := range m.stack {
		f, ok := s.(*formScreen)
		if !ok || f.module != nu {
			continue
		}
		before := old.Descriptor.Capability(f.cap.ID)
		if before == nil {
			continue
		}
		oldSchema := old.Descriptor.RequestSchemas[before.RequestSchema]
		newSchema := nu.Descriptor.RequestSchemas[f.cap.RequestSchema]
		if sameJSON(oldSchema, newSchema) {
			continue
		}
		value := f.form.Value()
		ns, cmd := openFormScreen(m, formArg{module: nu, cap: f.cap})
		fs, ok := ns.(*formScreen)
		if !ok {
			continue
		}
		fs.handoff = f.handoff
		fs.SetSize(f.w, f.h)
		kept, dropped := fittingMembers(value, newSchema)
		note := "The request schema changed: the form follows it, with the values that still fit."
		if len(dropped) > 0 {
			note += " Dropped (no longer in the schema): " + render.SanitizeLine(strings.Join(dropped, ", ")) + "."
		}
		if len(kept) > 0 {
			if lc, err := fs.form.LoadInput(kept, note); err == nil {
				cmd = tea.Batch(cmd, lc)
			}
		} else {
			fs.form.SetNote(note)
		}
		m.stack[i] = fs
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// fittingMembers keeps the members of value (a JSON object) that schema
// still declares under "properties" (all of them when it declares none and
// does not forbid others); dropped names the rest, sorted. A value that is
// not an object is kept whole when non-empty.
func fittingMembers(value, schema json.RawMessage) (json.RawMessage, []string) {
	var members map[string]json.RawMessage
	if json.Unmarshal(value, &members) != nil {
		return nil, nil
	}
	var s struct {
		Properties           map[string]json.RawMessage `json:"properties"`
		AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	}
	_ = json.Unmarshal(schema, &s)
	closed := string(bytes.TrimSpace(s.AdditionalProperties)) == "false"
	var dropped []string
	for k := range members {
		if _, ok := s.Properties[k]; !ok && (closed || len(s.Properties) > 0) {
			dropped = append(dropped, k)
			delete(members, k)
		}
	}
	slices.Sort(dropped)
	if len(members) == 0 {
		return nil, dropped
	}
	out, _ := json.Marshal(members)
	return out, dropped
}

// replaceModule puts nu where the screens hold old: the module list, a
// capability list of it (its capabilities rebuilt), and the module the
// form plans with when its capability is still declared.
func (m *Model) replaceModule(old, nu *runner.Module) {
	mods := slices.Clone(m.modules.modules)
	if i := slices.Index(mods, old); i >= 0 {
		mods[i] = nu
		m.modules.SetModules(mods)
	} else if m.dev != nil && len(mods) == 0 {
		m.modules.SetModules([]*runner.Module{nu})
	}
	for i, s := range m.stack {
		if c, ok := s.(*capList); ok && c.module == old {
			if ns, _ := openCapsScreen(m, nu); ns != nil {
				m.stack[i] = ns
			}
		}
		if f, ok := s.(*formScreen); ok && f.module == old {
			if c := nu.Descriptor.Capability(f.cap.ID); c != nil {
				f.module, f.cap = nu, *c
			}
		}
	}
	if m.flow.module == old {
		if c := nu.Descriptor.Capability(m.flow.cap.ID); c != nil {
			m.flow.module, m.flow.cap = nu, *c
		}
	}
}

// closeDev stops a dev session's watcher.
func (m *Model) closeDev() {
	if m.dev != nil && m.dev.watch != nil {
		m.dev.watch.Close()
	}
}

// devBadge is the header's dev notice ("" outside a dev session).
func (m *Model) devBadge() string {
	if m.dev == nil || len(m.stack) == 0 || m.dev.notice == "" || m.screen() == screenModules {
		return ""
	}
	st := m.com.Styles
	switch {
	case m.dev.invalid:
		return st.Muted.Render(" · ") + st.Error.Render("dev: descriptor invalid (esc to the list)")
	case len(m.dev.changes) > 0:
		n := len(m.dev.changes)
		// The changes of the last describe, not a running total.
		return st.Muted.Render(" · ") + st.Warning.Render(fmt.Sprintf("dev: %d descriptor %s in the last describe", n, words.Plural(n, "change", "changes")))
	}
	return ""
}

// descriptorChanges lists, in words, how descriptor b differs from a:
// capabilities added and removed, and for each kept capability its
// request schema, effects, long_running, cancel_capability, skills,
// title and summary; then the module's name, version, permissions,
// requirements, skills and agent overlays. At most maxDevChanges
// entries (the last says how many more). Module strings are sanitized.
func descriptorChanges(a, b *modproto.Descriptor) []string {
	if a == nil || b == nil {
		if a == b {
			return nil
		}
		return []string{"the descriptor is new"}
	}
	var out []string
	id := func(s string) string { return render.SanitizeLine(s) }
	for _, c := range b.Capabilities {
		if a.Capability(c.ID) == nil {
			out = append(out, "capability "+id(c.ID)+" added")
		}
	}
	for _, c := range a.Capabilities {
		if b.Capability(c.ID) == nil {
			out = append(out, "capability "+id(c.ID)+" removed")
		}
	}
	for _, ca := range a.Capabilities {
		cb := b.Capability(ca.ID)
		if cb == nil {
			continue
		}
		if ca.RequestSchema != cb.RequestSchema || !sameJSON(a.RequestSchemas[ca.RequestSchema], b.RequestSchemas[cb.RequestSchema]) {
			out = append(out, id(ca.ID)+": request schema changed")
		}
		if !sameValue(ca.Effects, cb.Effects) {
			out = append(out, id(ca.ID)+": effects changed ("+strings.Join(render.EffectBadges(cb.Effects, cb.LongRunning), ", ")+")")
		}
		if ca.LongRunning != cb.LongRunning || ca.PollCapability != cb.PollCapability {
			out = append(out, id(ca.ID)+": long_running changed")
		}
		if ca.CancelCapability != cb.CancelCapability {
			out = append(out, id(ca.ID)+": cancel_capability changed")
		}
		if !slices.Equal(ca.Skills, cb.Skills) {
			out = append(out, id(ca.ID)+": skills changed")
		}
		if !slices.Equal(ca.ArtifactSchemas, cb.ArtifactSchemas) {
			out = append(out, id(ca.ID)+": artifact schemas changed")
		}
		if ca.Title != cb.Title || ca.Summary != cb.Summary {
			out = append(out, id(ca.ID)+": title or summary changed")
		}
	}
	if a.Name != b.Name {
		out = append(out, "name "+id(a.Name)+" → "+id(b.Name))
	}
	if a.Version != b.Version {
		out = append(out, "version "+id(a.Version)+" → "+id(b.Version))
	}
	if !sameValue(a.Permissions, b.Permissions) {
		out = append(out, "permissions changed")
	}
	if !sameValue(a.Requirements, b.Requirements) {
		out = append(out, "requirements changed")
	}
	if !sameValue(a.Skills, b.Skills) {
		out = append(out, "skills changed")
	}
	if !sameValue(a.AgentOverlays, b.AgentOverlays) {
		out = append(out, "agent overlays changed")
	}
	if len(out) > maxDevChanges {
		more := len(out) - maxDevChanges + 1
		out = append(out[:maxDevChanges-1], fmt.Sprintf("%d more", more))
	}
	return out
}

// capabilityChange says how capability capID of descriptor b differs
// from a in what its input may be ("" when it does not): removed, or its
// request schema changed.
func capabilityChange(a, b *modproto.Descriptor, capID string) string {
	if a == nil || b == nil {
		return ""
	}
	ca, cb := a.Capability(capID), b.Capability(capID)
	switch {
	case ca == nil:
		return ""
	case cb == nil:
		return "the module no longer declares " + render.SanitizeLine(capID)
	case ca.RequestSchema != cb.RequestSchema || !sameJSON(a.RequestSchemas[ca.RequestSchema], b.RequestSchemas[cb.RequestSchema]):
		return "the request schema of " + render.SanitizeLine(capID) + " changed"
	case !sameValue(ca.Effects, cb.Effects):
		return "the effects of " + render.SanitizeLine(capID) + " changed"
	}
	return ""
}

// sameJSON compares two JSON documents by value (key order and spacing
// aside).
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}

// sameValue compares two values by their JSON.
func sameValue(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// devWatchDirs are the directories a dev session watches for mod: its
// directory, the launcher's directory and, when the launcher is a
// symlink, its target's; then their subdirectories breadth first, up to
// maxDevWatchDirs, skipping devSkipDirs and dot directories.
func devWatchDirs(mod *runner.Module) []string {
	var roots []string
	add := func(d string) {
		if d != "" && !slices.Contains(roots, d) {
			roots = append(roots, d)
		}
	}
	add(mod.Dir)
	if mod.Exe != "" {
		add(filepath.Dir(mod.Exe))
		if real, err := filepath.EvalSymlinks(mod.Exe); err == nil {
			add(filepath.Dir(real))
		}
	}
	dirs := slices.Clone(roots)
	for i := 0; i < len(dirs) && len(dirs) < maxDevWatchDirs; i++ {
		entries, err := os.ReadDir(dirs[i])
		if err != nil {
			continue
		}
		for _, e := range entries {
			n := e.Name()
			if !e.IsDir() || devSkipDirs[n] || strings.HasPrefix(n, ".") {
				continue
			}
			if p := filepath.Join(dirs[i], n); !slices.Contains(dirs, p) && len(dirs) < maxDevWatchDirs {
				dirs = append(dirs, p)
			}
		}
	}
	return dirs
}

// devWatch watches a module's directories (fsnotify) and delivers each
// burst of changes once it has been quiet for devDebounce, as the base
// names changed (bounded). Its goroutine ends with Close.
type devWatch struct {
	w       *fsnotify.Watcher
	changes chan []string
	done    chan struct{}
	once    sync.Once
}

// maxDevNames bounds the names one change lists.
const maxDevNames = 5

// newDevWatch starts watching dirs; a directory that cannot be watched
// is an error only when none can.
func newDevWatch(dirs []string) (*devWatch, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	var added int
	var first error
	for _, d := range dirs {
		if err := w.Add(d); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		added++
	}
	if added == 0 {
		w.Close()
		if first == nil {
			first = fmt.Errorf("nothing to watch")
		}
		return nil, first
	}
	d := &devWatch{w: w, changes: make(chan []string, 1), done: make(chan struct{})}
	go d.loop()
	return d, nil
}

// devIgnored reports whether a changed file is noise: editor swap and
// backup files, compiled caches, dot files.
func devIgnored(name string) bool {
	base := filepath.Base(name)
	return strings.HasPrefix(base, ".") || strings.HasSuffix(base, "~") || strings.HasSuffix(base, ".swp") ||
		strings.HasSuffix(base, ".pyc") || devSkipDirs[base] || strings.HasPrefix(base, "#")
}

// loop gathers events until a quiet devDebounce, then hands the names
// on; a batch not yet taken absorbs the next one. A file created and gone
// again within the burst (an editor's or sed's temporary) is left out.
func (d *devWatch) loop() {
	defer close(d.changes)
	var names []string
	created := map[string]string{} // base name → path, created in this burst
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-d.done:
			return
		case ev, ok := <-d.w.Events:
			if !ok {
				return
			}
			if devIgnored(ev.Name) {
				continue
			}
			b := render.SanitizeLine(filepath.Base(ev.Name))
			if !slices.Contains(names, b) && len(names) < maxDevNames {
				names = append(names, b)
				if ev.Has(fsnotify.Create) {
					created[b] = ev.Name
				}
			}
			timer.Reset(devDebounce)
		case _, ok := <-d.w.Errors:
			if !ok {
				return
			}
		case <-timer.C:
			names = slices.DeleteFunc(names, func(n string) bool {
				p, ok := created[n]
				_, err := os.Lstat(p)
				return ok && err != nil
			})
			clear(created)
			if len(names) == 0 {
				continue
			}
			select {
			case d.changes <- names:
			case old := <-d.changes:
				// Not yet taken: merge, so nothing is lost.
				for _, n := range names {
					if !slices.Contains(old, n) && len(old) < maxDevNames {
						old = append(old, n)
					}
				}
				d.changes <- old
			}
			names = nil
		}
	}
}

// Close stops watching; the changes channel closes.
func (d *devWatch) Close() {
	d.once.Do(func() {
		close(d.done)
		d.w.Close()
	})
}
