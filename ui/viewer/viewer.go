package viewer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/probe"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/clipboard"
	"modbay/ui/common"
)

const (
	// MaxViewBytes is the largest file a viewer loads into memory: the one
	// render bound, render.MaxRenderBytes. Past it a file is offered as a
	// download instead of risking the terminal session.
	MaxViewBytes = render.MaxRenderBytes
	// maxSaveAttempts bounds the "name-2.ext", "name-3.ext"… suffixes tried
	// so a save never overwrites a file.
	maxSaveAttempts = 1000
	// headerLines is the viewer's header above the body: title, facts and
	// the status line.
	headerLines = 3
	// maxShortHelpBody is how many of a body's bindings the one-line help
	// bar shows; the full help (?) lists them all.
	maxShortHelpBody = 4
)

// Env is what the viewers know about where they run, learned once at start
// (DetectEnv) so Update never reads the environment.
type Env struct {
	// LocalDisplay is true when a graphical session is on this machine
	// (DISPLAY or WAYLAND_DISPLAY set, or macOS/Windows) and the program is
	// not running over SSH; only then does `o` open files.
	LocalDisplay bool
	// Opener is the program that opens a file with its default application
	// (xdg-open, open); empty when none was found.
	Opener string
	// Probe holds the media probes found (ffprobe, pdftotext); the probe
	// package runs them.
	Probe probe.Tools
	// Graphics is the terminal's image protocol (render.DetectGraphics).
	Graphics render.Graphics
	// Clipboard is how y copies (through tmux inside tmux, else OSC 52).
	Clipboard clipboard.Clipboard
	// Pager is the command line O runs on a sanitized copy ($PAGER, else
	// less), Editor E's ($VISUAL, else $EDITOR, else editor, else vi, as
	// git falls back); "" when unset or its program is not on PATH.
	Pager, Editor string
	// EditorFrom is where Editor came from: "$VISUAL", "$EDITOR", or ""
	// for the fallback (ToolName then says so).
	EditorFrom string
	// TmpDir is where the sanitized copies are written (<home>/tmp); ""
	// offers neither O nor E.
	TmpDir string
}

// DetectEnv reads the environment and looks up the helper programs.
func DetectEnv() Env {
	e := Env{Graphics: render.DetectGraphics(os.Getenv), Clipboard: clipboard.Detect(os.Getenv, exec.LookPath)}
	ssh := os.Getenv("SSH_CONNECTION") != "" || os.Getenv("SSH_TTY") != ""
	display := os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "" ||
		runtime.GOOS == "darwin" || runtime.GOOS == "windows"
	e.LocalDisplay = display && !ssh
	opener := "xdg-open"
	if runtime.GOOS == "darwin" {
		opener = "open"
	}
	if p, err := exec.LookPath(opener); err == nil {
		e.Opener = p
	}
	e.Probe = probe.Detect()
	detectExternal(&e, os.Getenv, exec.LookPath)
	return e
}

// Msg is implemented by every message the viewers send themselves; the root
// model routes any Msg to its viewer.
type Msg interface{ viewerMsg() }

// tag makes a struct a Msg.
type tag struct{}

func (tag) viewerMsg() {}

// loadedMsg is a finished load of generation gen: the body to show.
type loadedMsg struct {
	tag
	gen  int
	body body
	err  error
	note string
	// encoding is the text encoding the file was decoded from, "" for
	// UTF-8 (render.DecodeText).
	encoding string
	// checked: the bytes shown hashed to the artifact's digest.
	checked bool
	// source is the file's source view (sourceBody), when small;
	// sourceLater: it is the file's text, read when first shown.
	source      body
	sourceLater bool
	// alt is the other rendering offered (markdown for plain text);
	// asMarkdown: the module's remembered choice is to show it.
	alt        body
	asMarkdown bool
}

// savedMsg is a finished copy of the artifact: path is the absolute path
// written, dir the absolute directory it went into.
type savedMsg struct {
	tag
	path, dir string
	err       error
}

// openedMsg is the system opener's start.
type openedMsg struct {
	tag
	err error
}

// Action is what the viewer asks the root model to do.
type Action interface{ viewerAction() }

// ActionBack closes the viewer.
type ActionBack struct{}

// ActionAskSaveDir asks for the directory to save into, starting at Dir.
// Base is the directory a relative answer is resolved against (the
// workspace the viewer was opened with; see ResolveSaveDir), for the
// prompt to say so.
type ActionAskSaveDir struct{ Dir, Base string }

func (ActionBack) viewerAction()       {}
func (ActionAskSaveDir) viewerAction() {}

// body is one presentation's widget.
type body interface {
	// SetSize gives the body its area.
	SetSize(w, h int)
	// Update handles a key or the body's own message; handled is false for
	// keys it does not use, which the Model then tries.
	Update(msg tea.Msg) (handled bool, cmd tea.Cmd)
	// View draws exactly the area.
	View() string
	// HelpKeys are the body's bindings that apply now.
	HelpKeys() []key.Binding
	// Typing reports whether a prompt in the body has the keys.
	Typing() bool
}

// fullHelper is a body whose full help lists more than HelpKeys (every
// scroll key, n/N before a search).
type fullHelper interface {
	FullHelpKeys() []key.Binding
}

// reflower is a body whose rendering depends on the width or theme: Reflow
// starts a re-render for o in a Cmd.
type reflower interface {
	Reflow(o render.Options) tea.Cmd
}

// Model shows one file with the viewer its presentation selects: a
// verified artifact of a run (New) or any file described by render
// metadata (NewFile: a SKILL.md, a history record).
type Model struct {
	com   *common.Common
	keys  KeyMap
	env   Env
	reqID string
	// meta describes the file (title, kind, media type, presentation,
	// digest, size, whether verified); path is where it is read from.
	meta render.Meta
	path string
	// name is the file name a saved copy gets; label is the header's
	// title when meta has none (the artifact's id, or the file's name).
	name, label string
	art         runner.VerifiedArtifact
	siblings    []runner.VerifiedArtifact
	pres        string
	gen         int
	// body is the body shown: rendered, or source when showSource.
	body     body
	rendered body
	source   body
	// showSource: the source view (key v) is shown. sourceLater: the
	// source view is the file's text, not built yet (loadSource builds
	// it when first shown); sourceGen is the load that is building it.
	showSource  bool
	sourceLater bool
	sourceGen   int
	// alt is the other rendering offered for the file (plain text as
	// markdown, key m), swapped with rendered by toggleAlt.
	alt body
	// asMarkdown: alt is shown in place of the first rendering (key m).
	asMarkdown bool
	// module and prefs remember the markdown choice per module
	// (Remember); prefs nil remembers nothing.
	module  string
	prefs   MarkdownPrefs
	loading bool
	err     error
	note    string
	// noteExtra is how many lines past one the status note wrapped to
	// when last drawn (headH).
	noteExtra int
	// encoding is the text encoding the file was decoded from (shown in
	// the header), "" for UTF-8.
	encoding string
	// verified is set when the last load hashed the file to its digest;
	// the header says "verified" only then.
	verified bool
	saveDir  string
	// baseDir is the directory relative save paths start from: the save
	// directory the viewer was opened with (the workspace), never the
	// process's working directory.
	baseDir string
	saved   string
	width   int
	height  int
}

// MarkdownPrefs remembers per module whether plain text is shown
// rendered as markdown (key m). It reads and writes a file: the viewer
// calls it only inside Cmds.
type MarkdownPrefs interface {
	Markdown(module string) (bool, error)
	SetMarkdown(module string, on bool) error
}

// Remember makes the viewer open module's plain text as markdown when
// the person last chose so for module, and keep each choice of m in p.
// Call it before Load.
func (m *Model) Remember(module string, p MarkdownPrefs) { m.module, m.prefs = module, p }

// prefSavedMsg says the markdown choice was kept (err nil) or could not be.
type prefSavedMsg struct {
	tag
	err error
}

// New returns a viewer for artifact a of run reqID; siblings are the run's
// other artifacts (an image grid shows them), saveDir the default save
// directory. Call Load for the Cmd that reads it.
func New(com *common.Common, keys KeyMap, env Env, reqID string, a runner.VerifiedArtifact, siblings []runner.VerifiedArtifact, saveDir string) *Model {
	// The name comes from the module: sanitized before it names a file
	// or reaches the clipboard in a path (saveName).
	name := saveName(a.Path, a.ID)
	m := newModel(com, keys, env, metaOf(a), a.Staged, name, saveDir)
	m.reqID, m.art, m.siblings, m.label = reqID, a, siblings, a.ID
	return m
}

// NewFile returns a viewer for the file at path described by meta (its
// presentation chosen by render.Resolve(meta.Presentation,
// meta.MediaType), docs/protocol.md §10), outside any run: a skill's SKILL.md, a
// history record. The header says "verified" only when meta.Verified and
// the bytes read hash to meta.Digest; a
// missing meta.Title is the file's name. saveDir is the default save
// directory. Call Load for the Cmd that reads it.
func NewFile(com *common.Common, keys KeyMap, env Env, meta render.Meta, path, saveDir string) *Model {
	if meta.Path == "" {
		meta.Path = path
	}
	return newModel(com, keys, env, meta, path, filepath.Base(path), saveDir)
}

// newModel is the viewer of both constructors.
func newModel(com *common.Common, keys KeyMap, env Env, meta render.Meta, path, name, saveDir string) *Model {
	m := &Model{com: com, keys: keys, env: env, meta: meta, path: path, name: name, label: name, saveDir: saveDir, baseDir: saveDir}
	m.pres = render.Resolve(meta.Presentation, meta.MediaType)
	m.SetSize(com.Width, com.Height)
	return m
}

// RequestID is the id of the run whose artifact this is ("" for NewFile).
func (m *Model) RequestID() string { return m.reqID }

// Artifact is the artifact shown (zero for NewFile).
func (m *Model) Artifact() runner.VerifiedArtifact { return m.art }

// Loading reports whether the file is still being read and prepared.
func (m *Model) Loading() bool { return m.loading }

// Note is the status line's message ("Saved a copy to …"), if any.
func (m *Model) Note() string { return m.note }

// NoteCut reports whether the status line cuts the note at this width
// (common.NoteCut).
func (m *Model) NoteCut() bool { return common.NoteCut(render.SanitizeLine(m.note), m.width) }

// Err is the load or render error shown in the status line.
func (m *Model) Err() error { return m.err }

// SaveDir is the directory the save prompt starts in: the last directory
// saved into, else the workspace.
func (m *Model) SaveDir() string { return m.saveDir }

// SaveBase is the directory a relative save path is resolved against.
func (m *Model) SaveBase() string { return m.baseDir }

// Presentation is the resolved primitive (docs/protocol.md §10).
func (m *Model) Presentation() string { return m.pres }

// headH is the header's height: headerLines, and the lines a status
// note wraps to past its first (noteExtra).
func (m *Model) headH() int { return headerLines + m.noteExtra }

// SetSize sets the area below the cockpit's header line.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	if m.body != nil {
		m.body.SetSize(w, max(h-m.headH(), 1))
	}
}

// options are the render options for the current width and theme.
func (m *Model) options() render.Options {
	return render.Options{Width: m.width, Dark: m.com.Dark, NoColor: m.com.NoColor, Attributes: m.com.NoColor}
}

// Reflow re-renders the body for a new width or theme, in a Cmd.
func (m *Model) Reflow() tea.Cmd {
	if r, ok := m.body.(reflower); ok {
		return r.Reflow(m.options())
	}
	return nil
}

// Meta describes the file shown.
func (m *Model) Meta() render.Meta { return m.meta }

// metaOf describes a for the render package.
func metaOf(a runner.VerifiedArtifact) render.Meta {
	size := a.Size
	if size == 0 {
		size = a.Bytes
	}
	return render.Meta{
		Title: a.Title, Kind: a.Kind, MediaType: a.MediaType,
		Presentation: a.Artifact.Presentation, Digest: a.Digest,
		Path: a.Staged, Bytes: size, Verified: true,
	}
}

// input is what a load Cmd needs, copied out of the Model.
func (m *Model) input() loadInput {
	return loadInput{
		com: m.com, keys: m.keys, env: m.env, meta: m.meta, path: m.path, art: m.art, siblings: m.siblings,
		pres: m.pres, opts: m.options(), w: m.width, h: max(m.height-m.headH(), 1),
	}
}

// Load reads and prepares the artifact in a Cmd; the body arrives as a
// message for this generation.
func (m *Model) Load() tea.Cmd {
	m.gen++
	m.loading = true
	gen := m.gen
	in := m.input()
	module, prefs := m.module, m.prefs
	return func() tea.Msg {
		b, note, err := load(context.Background(), &in)
		asMarkdown := false
		if in.alt != nil && prefs != nil {
			asMarkdown, _ = prefs.Markdown(module) // unreadable: as rendered
		}
		return loadedMsg{gen: gen, body: b, note: note, err: err, encoding: in.encoding, checked: in.checked,
			source: in.source, sourceLater: in.sourceLater, alt: in.alt, asMarkdown: asMarkdown}
	}
}

// closer is a body with work to stop once the viewer is gone (markdown's
// chunk renders).
type closer interface{ Close() }

// Close stops what the viewer's bodies still have to do: the screen is
// gone.
func (m *Model) Close() {
	for _, b := range []body{m.rendered, m.source, m.alt} {
		if c, ok := b.(closer); ok {
			c.Close()
		}
	}
}

// sourceMsg is the text source view loadSource built for load gen.
type sourceMsg struct {
	tag
	gen  int
	body body
	err  error
}

// loadSource starts building the text source view, unless a Cmd of this
// load already is.
func (m *Model) loadSource() tea.Cmd {
	if m.sourceGen == m.gen {
		return nil
	}
	m.sourceGen = m.gen
	gen, in := m.gen, m.input()
	return func() tea.Msg {
		b, err := loadSource(in)
		return sourceMsg{gen: gen, body: b, err: err}
	}
}

// Typing reports whether a prompt inside the viewer has the keys (so the
// root's global keys such as ? and q stay out of the way).
func (m *Model) Typing() bool { return m.body != nil && m.body.Typing() }

// Update handles a key or a viewer message.
func (m *Model) Update(msg tea.Msg) (Action, tea.Cmd) {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.gen != m.gen {
			return nil, nil
		}
		m.loading = false
		m.err = msg.err
		m.encoding = msg.encoding
		m.verified = msg.checked
		if msg.note != "" {
			m.note = msg.note
		}
		m.Close() // a reload: the bodies before it are gone
		m.rendered, m.source, m.sourceLater, m.alt = msg.body, msg.source, msg.sourceLater, msg.alt
		m.asMarkdown = false
		if msg.asMarkdown && m.alt != nil {
			m.rendered, m.alt, m.asMarkdown = m.alt, m.rendered, true
		}
		m.body = m.rendered
		if m.showSource && m.sourceLater {
			m.body = nil
			return nil, m.loadSource()
		}
		if m.showSource && m.source != nil {
			m.body = m.source
		}
		if m.body == nil {
			return nil, nil
		}
		m.body.SetSize(m.width, max(m.height-m.headH(), 1))
		if s, ok := m.body.(interface{ Start() tea.Cmd }); ok {
			return nil, s.Start()
		}
		return nil, nil
	case sourceMsg:
		if msg.gen != m.gen {
			return nil, nil
		}
		m.sourceLater = false
		if msg.err != nil {
			// The rendering stays; the status line says why the source did
			// not, and the header no longer calls a changed file verified.
			m.err = fmt.Errorf("source view: %w", msg.err)
			if errors.Is(msg.err, ErrChanged) {
				m.verified = false
			}
			m.showSource = false
			m.body = m.rendered
		} else {
			m.source = msg.body
			if m.showSource {
				m.body = m.source
			}
		}
		if m.body != nil {
			m.body.SetSize(m.width, max(m.height-m.headH(), 1))
		}
		return nil, nil
	case savedMsg:
		if msg.err != nil {
			m.note = "Not saved: " + msg.err.Error()
			return nil, nil
		}
		m.saved, m.saveDir = msg.path, msg.dir
		m.note = "Saved a copy to " + msg.path
		if !m.copyTaken() {
			m.note += " · y copies the path"
		}
		return nil, nil
	case copyMsg:
		return nil, m.copy(msg.text, msg.what)
	case prefSavedMsg:
		if msg.err != nil {
			m.note = "The markdown choice is not remembered: " + msg.err.Error()
		}
		return nil, nil
	case copiedMsg:
		m.note = msg.res.Note(msg.what)
		return nil, nil
	case OpenedCopyMsg:
		m.note = msg.Note()
		return nil, nil
	case openedMsg:
		if msg.err != nil {
			m.note = "Could not open: " + msg.err.Error()
		} else {
			m.note = "Opened with the system viewer."
		}
		return nil, nil
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	if m.body != nil {
		_, cmd := m.body.Update(msg)
		return nil, cmd
	}
	return nil, nil
}

// key routes a key: the body first, then the artifact's own keys.
func (m *Model) key(kp tea.KeyPressMsg) (Action, tea.Cmd) {
	if m.body != nil {
		if handled, cmd := m.body.Update(kp); handled {
			return nil, cmd
		}
	}
	k := m.keys.Artifact
	switch {
	case key.Matches(kp, k.Back):
		return ActionBack{}, nil
	case key.Matches(kp, k.Source) && m.hasSource():
		return nil, m.toggleSource()
	case key.Matches(kp, k.Markdown) && m.alt != nil && !m.showSource:
		m.rendered, m.alt = m.alt, m.rendered
		m.asMarkdown = !m.asMarkdown
		m.body = m.rendered
		m.body.SetSize(m.width, max(m.height-m.headH(), 1))
		var start tea.Cmd
		if s, ok := m.body.(interface{ Start() tea.Cmd }); ok {
			start = s.Start()
		}
		return nil, tea.Batch(start, m.keepMarkdown())
	case key.Matches(kp, k.Save):
		return ActionAskSaveDir{Dir: m.saveDir, Base: m.baseDir}, nil
	case key.Matches(kp, k.Open):
		return nil, m.open()
	case key.Matches(kp, k.Pager):
		return nil, m.openCopy(ToolPager)
	case key.Matches(kp, k.Editor):
		return nil, m.openCopy(ToolEditor)
	case key.Matches(kp, k.Copy):
		p := m.saved
		if p == "" {
			p = m.path
		}
		return nil, m.copy(p, "the path "+p)
	}
	return nil, nil
}

// keepMarkdown is the Cmd that remembers the markdown choice for the
// module (nil when nothing is remembered).
func (m *Model) keepMarkdown() tea.Cmd {
	if m.prefs == nil || m.module == "" {
		return nil
	}
	p, module, on := m.prefs, m.module, m.asMarkdown
	return func() tea.Msg {
		if err := p.SetMarkdown(module, on); err != nil {
			return prefSavedMsg{err: err}
		}
		return prefSavedMsg{}
	}
}

// toggleSource switches between the rendering and the source view; the
// body switched to takes the current size (and re-renders when it
// depends on the width).
func (m *Model) toggleSource() tea.Cmd {
	m.showSource = !m.showSource
	m.body = m.rendered
	if m.showSource {
		m.body = m.source
		if m.sourceLater {
			return m.loadSource() // "loading…" until it comes
		}
	}
	if m.body == nil {
		return nil
	}
	m.body.SetSize(m.width, max(m.height-m.headH(), 1))
	if !m.showSource {
		return m.Reflow()
	}
	return nil
}

// hasSource reports whether v has a source view to show.
func (m *Model) hasSource() bool { return m.source != nil || m.sourceLater }

// open starts the system opener on the staged file, or explains why not.
func (m *Model) open() tea.Cmd {
	if !m.env.LocalDisplay {
		m.note = "No local display (over SSH or headless): s saves a copy"
		if !m.copyTaken() {
			m.note += ", y copies its path"
		}
		if m.env.CanOpen(ToolPager) {
			m.note += ", O opens it in " + m.env.ToolName(ToolPager)
		}
		m.note += "."
		return nil
	}
	if m.env.Opener == "" {
		m.note = "No opener (xdg-open) found: s saves a copy."
		return nil
	}
	opener, path := m.env.Opener, m.path
	m.note = "Opening…"
	return func() tea.Msg {
		cmd := exec.Command(opener, path)
		if err := cmd.Start(); err != nil {
			return openedMsg{err: err}
		}
		// The opener returns at once or lives as the viewer; either way it
		// is not ours to wait for beyond reaping it.
		go func() { _ = cmd.Wait() }()
		return openedMsg{}
	}
}

// openCopy opens a sanitized copy of the file in the pager or editor.
func (m *Model) openCopy(t Tool) tea.Cmd {
	if why := m.env.CannotOpen(t); why != "" {
		m.note = why
		return nil
	}
	m.note = "Opening a sanitized copy in " + m.env.ToolName(t) + "…"
	return OpenCopy(m.env, t, m.meta, m.path, m.pres)
}

// Save copies the staged file into dir in a Cmd, never overwriting: a taken
// name gets a -2, -3… suffix, which the status line then shows. dir is what
// the person typed: ResolveSaveDir expands a leading ~ and anchors a
// relative path at the workspace, and the note shows the absolute path
// written.
func (m *Model) Save(dir string) tea.Cmd {
	m.note = "Saving…"
	src, base, name := m.path, m.baseDir, m.name
	return func() tea.Msg {
		// The home directory is looked up here, off the Update loop.
		home, herr := os.UserHomeDir()
		if herr != nil {
			home = ""
		}
		abs, err := ResolveSaveDir(dir, base, home)
		if err != nil {
			return savedMsg{err: err}
		}
		p, err := CopyNoClobber(src, abs, name)
		return savedMsg{path: p, dir: abs, err: err}
	}
}

// ResolveSaveDir turns the save prompt's answer into an absolute directory:
// "~" is home and "~/x" is x under home (as a shell would expand them; the
// prompt is not a shell, so without this "~/x" would create a directory
// named "~"); any other relative path is resolved against base, the
// workspace the prompt starts in, never against the process's working
// directory, which the person cannot see. "~user" forms are refused rather
// than guessed. An empty home or base makes the answers that need it an
// error.
func ResolveSaveDir(input, base, home string) (string, error) {
	in := strings.TrimSpace(input)
	switch {
	case in == "":
		return "", errors.New("no directory given")
	case in == "~" || strings.HasPrefix(in, "~/") || strings.HasPrefix(in, "~"+string(filepath.Separator)):
		if home == "" {
			return "", fmt.Errorf("save dir %q: no home directory to expand ~ to", in)
		}
		in = filepath.Join(home, in[1:])
	case strings.HasPrefix(in, "~"):
		return "", fmt.Errorf("save dir %q: only ~ and ~/ are expanded (to your home)", in)
	case !filepath.IsAbs(in):
		if base == "" {
			return "", fmt.Errorf("save dir %q: relative path but no workspace to resolve it in; give an absolute path or ~/", in)
		}
		in = filepath.Join(base, in)
	}
	if !filepath.IsAbs(in) {
		// base or home was itself relative: anchor it once, explicitly.
		abs, err := filepath.Abs(in)
		if err != nil {
			return "", fmt.Errorf("save dir %q: %w", input, err)
		}
		in = abs
	}
	return filepath.Clean(in), nil
}

// CopyNoClobber copies src into dir as name, or name-2, name-3… when taken:
// an existing file is never overwritten (O_EXCL).
func CopyNoClobber(src, dir, name string) (string, error) {
	if dir == "" {
		return "", errors.New("no directory given")
	}
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i <= maxSaveAttempts; i++ {
		cand := name
		if i > 1 {
			cand = fmt.Sprintf("%s-%d%s", stem, i, ext)
		}
		p := filepath.Join(dir, cand)
		out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			os.Remove(p)
			return "", err
		}
		return p, out.Close()
	}
	return "", fmt.Errorf("%s: %d names already taken", filepath.Join(dir, name), maxSaveAttempts)
}

// View draws the header and the body.
func (m *Model) View() string {
	st := m.com.Styles
	meta := m.meta
	head := st.Title.Render(render.SanitizeLine(common.TitleOr(meta.Title, m.label)))
	if meta.Kind != "" {
		head += " " + st.ID.Render(render.SanitizeLine(meta.Kind))
	}
	facts := []string{render.SanitizeLine(common.OrDash(meta.MediaType)), render.HumanBytes(meta.Bytes)}
	if meta.Digest != "" {
		facts = append(facts, render.ShortDigest(meta.Digest))
	}
	facts = append(facts, m.pres)
	if m.encoding != "" && m.encoding != render.EncodingUTF8BOM {
		name, _, _ := strings.Cut(m.encoding, " (")
		facts = append(facts, name)
	}
	info := st.Muted.Render(strings.Join(facts, " · "))
	switch {
	case m.verified:
		info += " " + st.Success.Render("verified ✓")
	case errors.Is(m.err, ErrChanged):
		info += " " + st.Error.Render("changed since it was verified ✗")
	}
	var third string
	switch {
	case m.note != "":
		third = st.Warning.Render(common.Note(render.SanitizeLine(m.note), m.width))
	case m.err != nil:
		third = st.Error.Render(common.Note("✗ "+render.SanitizeLine(m.err.Error()), m.width))
	default:
		hint := "s saves a copy"
		if !m.copyTaken() {
			hint += " · y copies the path"
		}
		if m.env.LocalDisplay {
			hint += " · o opens it"
		}
		if m.env.CanOpen(ToolPager) {
			hint += " · O opens it in " + m.env.ToolName(ToolPager)
		}
		third = st.Muted.Render(hint)
	}
	if extra := common.Lines(third) - 1; extra != m.noteExtra {
		// The note wraps to another height: the body gets what is left.
		m.noteExtra = extra
		if m.body != nil {
			m.body.SetSize(m.width, max(m.height-m.headH(), 1))
		}
	}
	lines := []string{common.Trunc(head, m.width), common.Trunc(info, m.width), common.FitWidth(third, m.width)}
	body := st.Muted.Render("loading…")
	if m.body != nil {
		body = m.body.View()
	}
	return strings.Join(lines, "\n") + "\n" + body
}

// ShortHelp returns the bindings that apply now.
func (m *Model) ShortHelp() []key.Binding {
	var b []key.Binding
	if m.body != nil {
		b = m.body.HelpKeys()
		if m.body.Typing() {
			return b
		}
		// The short bar keeps to one line; ? shows the rest.
		b = b[:min(len(b), maxShortHelpBody)]
	}
	k := m.keys.Artifact
	switch {
	case m.showSource:
		// The way back to the rendering leads the bar.
		b = append([]key.Binding{k.Source}, b...)
	case m.hasSource():
		b = append(b, k.Source)
	}
	if m.alt != nil && !m.showSource {
		b = append(b, k.Markdown)
	}
	b = append(b, k.Save)
	if m.env.LocalDisplay {
		b = append(b, k.Open)
	}
	b = append(b, m.external()...)
	return append(b, m.unshadowed(k.Back)...)
}

// unshadowed keeps the artifact bindings whose keys the body does not take
// first (the JSON tree's y copies the JSON path, not the file's): a help
// line never promises what another key does.
func (m *Model) unshadowed(bs ...key.Binding) []key.Binding {
	if m.body == nil {
		return bs
	}
	var out []key.Binding
	for _, b := range bs {
		taken := false
		for _, hb := range m.body.HelpKeys() {
			for _, k := range hb.Keys() {
				taken = taken || slices.Contains(b.Keys(), k)
			}
		}
		if !taken {
			out = append(out, b)
		}
	}
	return out
}

// external is the pager and editor keys that act here (their program
// found, a directory for the copy) and that the body does not take.
func (m *Model) external() []key.Binding {
	var b []key.Binding
	if m.env.CanOpen(ToolPager) {
		b = append(b, m.keys.Artifact.Pager)
	}
	if m.env.CanOpen(ToolEditor) {
		b = append(b, m.keys.Artifact.Editor)
	}
	return m.unshadowed(b...)
}

// copyTaken reports whether the body takes the artifact's copy key.
func (m *Model) copyTaken() bool { return len(m.unshadowed(m.keys.Artifact.Copy)) == 0 }

// FullHelp returns every binding of the viewer, grouped.
func (m *Model) FullHelp() [][]key.Binding {
	var groups [][]key.Binding
	if fh, ok := m.body.(fullHelper); ok {
		groups = append(groups, fh.FullHelpKeys())
	} else if m.body != nil {
		groups = append(groups, m.body.HelpKeys())
	}
	k := m.keys.Artifact
	// O and E are listed where they cannot act too: pressed, they say
	// what to set.
	art := []key.Binding{k.Save, k.Open, k.Pager, k.Editor, k.Copy, k.Back}
	if m.alt != nil && !m.showSource {
		art = append([]key.Binding{k.Markdown}, art...)
	}
	if m.hasSource() {
		art = append([]key.Binding{k.Source}, art...)
	}
	return append(groups, m.unshadowed(art...))
}
