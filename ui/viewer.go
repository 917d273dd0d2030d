package ui

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
)

// viewerReadCap is the most bytes of an artifact the viewer reads to render
// it (16 MiB): past it the viewer shows the metadata and offers a copy.
const viewerReadCap = 16 << 20

// maxSaveAttempts bounds the "name-2.ext", "name-3.ext"… suffixes tried so
// a save never overwrites a file.
const maxSaveAttempts = 1000

// viewable are the presentations rendered in the terminal; the others show
// their metadata (WIRE.md §10, render.Artifact).
var viewable = map[string]bool{
	render.PresentationMarkdown: true, render.PresentationJSON: true,
	render.PresentationTable: true, render.PresentationText: true,
	render.PresentationTimeline: true, render.PresentationDiagram: true,
}

// artifactMsg is a finished render of artifact id of run reqID at width.
type artifactMsg struct {
	reqID, id string
	width     int
	body      string
	err       error
}

// savedMsg is a finished copy of an artifact.
type savedMsg struct {
	path string
	err  error
}

// viewer shows one verified artifact.
type viewer struct {
	com       *common.Common
	keys      ViewerKeyMap
	reqID     string
	art       runner.VerifiedArtifact
	vp        viewport.Model
	loading   bool
	err       error
	note      string
	saveDir   string
	width     int
	height    int
	renderedW int
}

func newViewer(com *common.Common, keys ViewerKeyMap, reqID string, a runner.VerifiedArtifact, workspace string) *viewer {
	v := &viewer{com: com, keys: keys, reqID: reqID, art: a, vp: viewport.New(), saveDir: workspace, loading: true}
	v.vp.KeyMap = viewport.KeyMap{}
	v.SetSize(com.Width, com.Height)
	return v
}

// header lines above the viewport.
const viewerHeader = 3

// SetSize sets the area.
func (v *viewer) SetSize(w, h int) {
	v.width, v.height = w, h
	v.vp.SetWidth(w)
	v.vp.SetHeight(max(h-viewerHeader, 1))
}

// meta is the artifact as render.Meta.
func (v *viewer) meta() render.Meta {
	a := v.art
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

// render renders the artifact in a Cmd at the current width.
func (v *viewer) render(o render.Options) tea.Cmd {
	o.Width = v.width
	v.loading = true
	reqID, id, m, staged := v.reqID, v.art.ID, v.meta(), v.art.Staged
	pres := render.Resolve(m.Presentation, m.MediaType)
	return func() tea.Msg {
		msg := artifactMsg{reqID: reqID, id: id, width: o.Width}
		if !viewable[pres] || m.Bytes > viewerReadCap {
			msg.body = render.Metadata(m, o)
			return msg
		}
		src, err := readCapped(staged, viewerReadCap)
		if err != nil {
			msg.body, msg.err = render.Metadata(m, o), err
			return msg
		}
		msg.body, msg.err = render.Artifact(src, m, o)
		return msg
	}
}

// readCapped reads at most n bytes of a regular file.
func readCapped(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	return io.ReadAll(io.LimitReader(f, n))
}

// rendered takes a finished render when it is for this artifact and width.
func (v *viewer) rendered(msg artifactMsg) {
	if msg.reqID != v.reqID || msg.id != v.art.ID || msg.width != v.width {
		return
	}
	v.loading = false
	v.err = msg.err
	v.renderedW = msg.width
	v.vp.SetContent(common.FitWidth(strings.TrimRight(msg.body, "\n"), v.width))
}

// Update scrolls.
func (v *viewer) Update(kp tea.KeyPressMsg) {
	switch {
	case key.Matches(kp, v.keys.Up):
		v.vp.ScrollUp(1)
	case key.Matches(kp, v.keys.Down):
		v.vp.ScrollDown(1)
	case key.Matches(kp, v.keys.PageUp):
		v.vp.PageUp()
	case key.Matches(kp, v.keys.PageDown):
		v.vp.PageDown()
	}
}

// save copies the staged file into dir in a Cmd.
func (v *viewer) save(dir string) tea.Cmd {
	v.saveDir = dir
	v.note = "Saving…"
	src := v.art.Staged
	name := filepath.Base(v.art.Path)
	if name == "." || name == "/" || name == "" {
		name = v.art.ID
	}
	return func() tea.Msg {
		p, err := copyNoClobber(src, dir, name)
		return savedMsg{path: p, err: err}
	}
}

// saved shows where the copy went.
func (v *viewer) saved(msg savedMsg) {
	if msg.err != nil {
		v.note = "Not saved: " + msg.err.Error()
		return
	}
	v.note = "Saved a copy to " + msg.path
}

// copyNoClobber copies src into dir as name, or name-2, name-3… when taken:
// an existing file is never overwritten (O_EXCL).
func copyNoClobber(src, dir, name string) (string, error) {
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
func (v *viewer) View() string {
	st := v.com.Styles
	a := v.art
	m := v.meta()
	head := st.Title.Render(render.SanitizeLine(titleOr(a.Title, a.ID))) + " " + st.ID.Render(render.SanitizeLine(a.Kind))
	info := strings.Join([]string{render.SanitizeLine(a.MediaType), humanSize(m.Bytes), shortDigest(a.Digest),
		render.Resolve(m.Presentation, m.MediaType)}, " · ") + " " + st.Success.Render("verified ✓")
	third := ""
	switch {
	case v.note != "":
		third = st.Warning.Render(v.note)
	case v.err != nil:
		third = st.Error.Render("✗ " + render.SanitizeLine(v.err.Error()))
	default:
		third = st.Muted.Render("s saves a copy")
	}
	lines := []string{common.Trunc(head, v.width), common.Trunc(st.Muted.Render(info), v.width), common.Trunc(third, v.width)}
	body := v.vp.View()
	if v.loading && v.renderedW == 0 {
		body = st.Muted.Render("rendering…")
	}
	return strings.Join(lines, "\n") + "\n" + body
}
