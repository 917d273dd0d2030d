package viewer

import (
	"fmt"
	"image"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
)

const (
	// thumbCells is a grid thumbnail's width in cells; its height follows
	// the image's aspect ratio, at most half the width.
	thumbCells = 24
	// thumbRows is a grid thumbnail's height in cells.
	thumbRows = 8
	// maxGridImages bounds how many sibling images a grid decodes.
	maxGridImages = 64
	// maxGridFileBytes bounds each grid image file read (16 MiB).
	maxGridFileBytes = 16 << 20
)

// picture shows a decoded image as true-color half blocks, scaled to fit,
// under a line giving its format and dimensions. The cockpit draws it in
// cells so it survives tmux, SSH and the renderer's diffing; the kitty and
// iTerm2 protocols are used by `modbay render` on a terminal that has them.
type picture struct {
	com  *common.Common
	keys KeyMap
	img  image.Image
	info render.ImageInfo
	dark bool
	w, h int
	// cache is the drawing for cacheW×cacheH.
	cache          string
	cacheW, cacheH int
}

// newImage decodes src (checking the declared size first) in the load Cmd.
func newImage(in loadInput, src []byte) (body, string, error) {
	img, info, err := render.DecodeImage(src)
	if err != nil {
		meta := in.meta
		return metadataBody(in, meta), "", err
	}
	return &picture{com: in.com, keys: in.keys, img: img, info: info}, "", nil
}

// SetSize implements body.
func (p *picture) SetSize(w, h int) { p.w, p.h = w, h }

// Update implements body; an image has no keys of its own.
func (p *picture) Update(tea.Msg) (bool, tea.Cmd) { return false, nil }

// Typing implements body.
func (p *picture) Typing() bool { return false }

// HelpKeys implements body.
func (p *picture) HelpKeys() []key.Binding { return nil }

// View draws the dimensions line and the image, centered.
func (p *picture) View() string {
	st := p.com.Styles
	headText := fmt.Sprintf("%s · %d×%d pixels", strings.ToUpper(p.info.Format), p.info.Width, p.info.Height)
	if p.info.Note != "" {
		headText += " · " + p.info.Note
	}
	head := st.Muted.Render(headText)
	cw, ch := render.FitCells(p.info.Width, p.info.Height, p.w, max(p.h-1, 1))
	if cw != p.cacheW || ch != p.cacheH || p.dark != p.com.Dark {
		p.cache = render.HalfBlocks(p.img, cw, ch, render.Options{Dark: p.com.Dark, NoColor: p.com.NoColor})
		p.cacheW, p.cacheH, p.dark = cw, ch, p.com.Dark
	}
	pad := strings.Repeat(" ", max(0, (p.w-cw)/2))
	var b strings.Builder
	b.WriteString(common.Trunc(head, p.w))
	for _, l := range splitLines(p.cache) {
		b.WriteString("\n" + pad + l)
	}
	return b.String()
}

// thumb is one image of a grid.
type thumb struct {
	title string
	art   runner.VerifiedArtifact
	img   image.Image
	info  render.ImageInfo
	err   error
	// drawn is the thumbnail at thumbCells×thumbRows.
	drawn []string
}

// grid shows the run's images as thumbnails with titles; enter opens the
// one under the cursor full size, esc returns to the grid.
type grid struct {
	com    *common.Common
	keys   KeyMap
	thumbs []thumb
	cur    int
	top    int // first visible grid row
	open   *picture
	w, h   int
}

// newGrid decodes the images among the artifact and its siblings; it runs
// in the load Cmd.
func newGrid(in loadInput) *grid {
	g := &grid{com: in.com, keys: in.keys}
	arts := []runner.VerifiedArtifact{in.art}
	for _, s := range in.siblings {
		if s.ID != in.art.ID {
			arts = append(arts, s)
		}
	}
	o := render.Options{Dark: in.com.Dark, NoColor: in.com.NoColor}
	for _, a := range arts {
		pres := render.Resolve(a.Artifact.Presentation, a.MediaType)
		if pres != modproto.PresentationImage && pres != modproto.PresentationImageGrid {
			continue
		}
		if len(g.thumbs) == maxGridImages {
			break
		}
		t := thumb{title: common.TitleOr(a.Title, a.ID), art: a}
		src, err := readCapped(a.Staged, maxGridFileBytes)
		if err == nil {
			err = checkBytes(a.Digest, src)
		}
		if err == nil {
			t.img, t.info, err = render.DecodeImage(src)
		}
		t.err = err
		if err == nil {
			cw, ch := render.FitCells(t.info.Width, t.info.Height, thumbCells, thumbRows)
			t.drawn = splitLines(render.HalfBlocks(t.img, cw, ch, o))
		}
		g.thumbs = append(g.thumbs, t)
	}
	return g
}

// SetSize implements body.
func (g *grid) SetSize(w, h int) {
	g.w, g.h = w, h
	if g.open != nil {
		g.open.SetSize(w, h)
	}
}

// perRow is how many thumbnails fit across.
func (g *grid) perRow() int { return max(1, (g.w+1)/(thumbCells+2)) }

// Typing implements body.
func (g *grid) Typing() bool { return false }

// Update moves the cursor and opens or closes an image.
func (g *grid) Update(msg tea.Msg) (bool, tea.Cmd) {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok || len(g.thumbs) == 0 {
		return false, nil
	}
	if g.open != nil {
		if key.Matches(kp, g.keys.Artifact.Back) {
			g.open = nil
			return true, nil
		}
		return false, nil
	}
	s, n := g.keys.Scroll, g.perRow()
	switch {
	case key.Matches(kp, s.Left):
		g.cur--
	case key.Matches(kp, s.Right):
		g.cur++
	case key.Matches(kp, s.Up):
		g.cur -= n
	case key.Matches(kp, s.Down):
		g.cur += n
	case key.Matches(kp, g.keys.Pages.Open):
		t := g.thumbs[g.cur]
		if t.img != nil {
			g.open = &picture{com: g.com, keys: g.keys, img: t.img, info: t.info}
			g.open.SetSize(g.w, g.h)
		}
	default:
		return false, nil
	}
	g.cur = max(0, min(g.cur, len(g.thumbs)-1))
	rowH := thumbRows + 2
	visible := max(1, g.h/rowH)
	if r := g.cur / n; r < g.top {
		g.top = r
	} else if r >= g.top+visible {
		g.top = r - visible + 1
	}
	return true, nil
}

// View draws the grid, or the open image.
func (g *grid) View() string {
	if g.open != nil {
		return g.open.View()
	}
	st := g.com.Styles
	if len(g.thumbs) == 0 {
		return st.Muted.Render("No images among this run's artifacts.")
	}
	n := g.perRow()
	var out []string
	for r := g.top; r*n < len(g.thumbs); r++ {
		cells := g.thumbs[r*n : min(len(g.thumbs), (r+1)*n)]
		for line := 0; line < thumbRows+2; line++ {
			var b strings.Builder
			for k, t := range cells {
				if k > 0 {
					b.WriteString("  ")
				}
				var s string
				switch {
				case line < thumbRows && line < len(t.drawn):
					s = t.drawn[line]
				case line < thumbRows && t.err != nil && line == 0:
					s = st.Error.Render(ansi.Truncate("✗ "+render.SanitizeLine(t.err.Error()), thumbCells, "…"))
				case line == thumbRows:
					title := ansi.Truncate(render.SanitizeLine(t.title), thumbCells, "…")
					if r*n+k == g.cur {
						title = st.Selected.Reverse(true).Render(title)
					}
					s = title
				case line == thumbRows+1 && t.err == nil:
					s = st.Muted.Render(fmt.Sprintf("%d×%d", t.info.Width, t.info.Height))
				}
				b.WriteString(s + strings.Repeat(" ", max(0, thumbCells-ansi.StringWidth(s))))
			}
			out = append(out, ansiTrunc(b.String(), g.w))
		}
		if len(out) >= g.h {
			break
		}
	}
	return strings.Join(out[:min(len(out), g.h)], "\n")
}

// HelpKeys implements body.
func (g *grid) HelpKeys() []key.Binding {
	if g.open != nil {
		return nil
	}
	k := g.keys
	return []key.Binding{k.Scroll.Left, k.Scroll.Right, k.Scroll.Up, k.Scroll.Down, k.Pages.Open}
}
