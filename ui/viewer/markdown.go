package viewer

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/render"
)

// markdownWorkers is how many chunks render at once: glamour is
// single-threaded, so two keep a second core busy without starving the UI.
const markdownWorkers = 2

// mdChunkMsg is one rendered chunk of generation gen.
type mdChunkMsg struct {
	tag
	gen, i int
	lines  []string
}

// markdown shows a markdown document rendered by glamour. The document is
// cut into chunks (render.SplitMarkdown) rendered in Cmds, first chunk first,
// so the first screen appears after one chunk's render (~16 KiB, well under
// 100 ms) and the rest streams in while the person reads; a resize or theme
// change starts a new generation and keeps the relative scroll position.
type markdown struct {
	pager
	chunks   [][]byte
	rendered [][]string
	done     int // chunks rendered
	next     int // next chunk to start
	shown    int // chunks in the pager (a contiguous prefix)
	gen      int
	opts     render.Options
	// frac is the scroll position as a share of the document, kept across
	// a reflow.
	frac float64
}

// newMarkdown prepares the chunks; rendering starts with Start.
func newMarkdown(in loadInput, src []byte) *markdown {
	m := &markdown{pager: newPager(in.com, in.keys), chunks: render.SplitMarkdown(src, render.MarkdownChunkBytes), opts: in.opts}
	m.rendered = make([][]string, len(m.chunks))
	return m
}

// Start begins rendering the current generation.
func (m *markdown) Start() tea.Cmd {
	m.gen++
	m.rendered = make([][]string, len(m.chunks))
	m.done, m.next, m.shown = 0, 0, 0
	var cmds []tea.Cmd
	for range min(markdownWorkers, len(m.chunks)) {
		cmds = append(cmds, m.renderNext())
	}
	return tea.Batch(cmds...)
}

// renderNext returns the Cmd that renders the next chunk.
func (m *markdown) renderNext() tea.Cmd {
	if m.next >= len(m.chunks) {
		return nil
	}
	i, gen, src, o := m.next, m.gen, m.chunks[m.next], m.opts
	m.next++
	return func() tea.Msg {
		out, err := render.Markdown(src, o)
		if err != nil && out == "" {
			out = render.Text(src, o)
		}
		return mdChunkMsg{gen: gen, i: i, lines: trimBlankEdges(splitLines(out))}
	}
}

// trimBlankEdges drops blank lines at the start and end of a chunk, so the
// joins between chunks get exactly one blank line.
func trimBlankEdges(lines []string) []string {
	blank := func(s string) bool { return strings.TrimSpace(stripANSI(s)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Reflow re-renders every chunk for o, keeping the scroll position.
func (m *markdown) Reflow(o render.Options) tea.Cmd {
	if len(m.pager.lines) > 0 {
		m.frac = float64(m.pager.top) / float64(len(m.pager.lines))
	}
	m.opts = o
	return m.Start()
}

// Update takes rendered chunks and keys.
func (m *markdown) Update(msg tea.Msg) (bool, tea.Cmd) {
	switch msg := msg.(type) {
	case mdChunkMsg:
		if msg.gen != m.gen {
			return true, nil
		}
		m.rendered[msg.i] = msg.lines
		m.done++
		if m.shown < len(m.chunks) && m.rendered[m.shown] != nil {
			m.publish()
		}
		return true, m.renderNext()
	case tea.KeyPressMsg:
		return m.pager.Update(msg)
	}
	return false, nil
}

// publish puts the contiguous rendered prefix into the pager.
func (m *markdown) publish() {
	first := m.shown == 0
	lines := m.pager.lines
	if first {
		lines = nil
	}
	for m.shown < len(m.chunks) && m.rendered[m.shown] != nil {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, m.rendered[m.shown]...)
		m.shown++
	}
	m.pager.SetLines(lines, nil)
	if first && m.frac > 0 {
		m.pager.top = int(m.frac * float64(len(lines)))
		m.pager.clamp()
	}
	if m.shown < len(m.chunks) {
		m.pager.status = fmt.Sprintf("rendering %d%%…", 100*m.shown/len(m.chunks))
	} else if m.pager.search.query == "" {
		m.pager.status = ""
	}
}

// HelpKeys implements body.
func (m *markdown) HelpKeys() []key.Binding { return m.pager.helpKeys() }
