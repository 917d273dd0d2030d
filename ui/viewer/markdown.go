package viewer

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"modbay/render"
	"modbay/ui/common"
)

const (
	// markdownWorkers is how many chunks the first pass renders at once:
	// glamour is single-threaded, so two keep a second core busy without
	// starving the UI.
	markdownWorkers = 2
	// markdownWindow is how many chunks on each side of those on screen keep
	// their styled lines. Glamour's styled output is ~20 bytes per source
	// byte (bench/viewers.txt), so a 1 MB document held whole is ~21x its
	// size; a window of a 16 KiB chunk each side is a few hundred lines of
	// margin (scrolling never waits for glamour a screen at a time) and keeps
	// the viewer near 2x whatever the document's size.
	markdownWindow = 1
)

// markdownRenders holds a slot for each chunk render under way in this
// process, over every viewer: opening and closing viewers or resizing
// starts renders of their own, and glamour's calls cannot be stopped, so
// at most markdownWorkers run at once and a queued one whose viewer or
// generation is gone never starts.
var markdownRenders = make(chan struct{}, markdownWorkers)

// mdChunkMsg is one rendered chunk of generation gen.
type mdChunkMsg struct {
	tag
	gen, i int
	lines  []string
}

// mdHit is one occurrence of the search query in a chunk's source.
type mdHit struct {
	// chunk is the chunk index; nth is the occurrence's index within it.
	chunk, nth int
	// frac is the occurrence's byte offset as a share of the chunk, the
	// fallback position when the rendered lines do not contain the query
	// (it matched markup or a link's URL).
	frac float64
}

// markdown shows a markdown document rendered by glamour, keeping styled
// lines only near the screen. The document is cut into chunks
// (render.SplitMarkdown) that render in Cmds, first chunk first, so the first
// screen appears after one chunk's render and the rest streams in while the
// person reads. That first pass records each chunk's line count, which fixes
// every line's position; a chunk's styled lines are then dropped once it is
// more than markdownWindow chunks from the screen, and rendered again, in a
// Cmd, when it comes back. Search runs over the source of every chunk, so it
// finds text in chunks that are not rendered; the match's chunk is rendered
// and the view moves to the line that shows it. A resize or theme change
// starts a new generation and keeps the relative scroll position.
type markdown struct {
	com *common.Common
	// live is the generation whose renders may start, -1 once closed;
	// shared with the render Cmds.
	live   *atomic.Int64
	keys   KeyMap
	chunks [][]byte
	// defs are the document's link reference definitions, given to every
	// chunk's render so references resolve as in the whole document.
	defs []byte
	opts render.Options
	gen  int
	// lines are the styled lines of the chunks held (nil for the others).
	lines [][]string
	// counts are the chunks' line counts for this generation, -1 until the
	// chunk has rendered once.
	counts []int
	// busy marks chunks whose render for this generation is in flight.
	busy     []bool
	inflight int
	// known is how many leading chunks have counts: the document shown so
	// far. starts[c] is chunk c's first line for c <= known; starts[known]
	// is the line count.
	known  int
	starts []int
	// next is the next chunk of the first pass.
	next int
	top  int
	w, h int
	// frac is the scroll position as a share of the document, kept across
	// a reflow.
	frac   float64
	search searchBox
	hits   []mdHit
	cur    int
	// waiting is the hit whose chunk is rendering before the view can move
	// to it, or -1.
	waiting int
	// matchLine is the line of the current match (highlighted), or -1.
	matchLine int
	status    string
	// xoff is how many cells of every code line are scrolled off to the
	// left (code lines are kept whole: render.Options.ScrollCode).
	xoff int
}

// newMarkdown prepares the chunks; rendering starts with Start.
func newMarkdown(in loadInput, src []byte) *markdown {
	m := &markdown{com: in.com, keys: in.keys, live: new(atomic.Int64), chunks: render.SplitMarkdown(src, render.MarkdownChunkBytes),
		defs: render.LinkDefinitions(src),
		opts: codeScroll(in.opts), w: in.w, h: in.h, waiting: -1, matchLine: -1,
		search: newSearchBox(in.com, in.keys.Search, "/")}
	m.reset()
	return m
}

// codeScroll is o with code lines kept whole: the viewer scrolls them.
func codeScroll(o render.Options) render.Options {
	o.ScrollCode = true
	return o
}

// Close stops the renders not yet started: the viewer is gone.
func (m *markdown) Close() { m.live.Store(-1) }

// reset forgets every rendering (a new generation).
func (m *markdown) reset() {
	n := len(m.chunks)
	m.lines, m.counts, m.busy = make([][]string, n), make([]int, n), make([]bool, n)
	for i := range m.counts {
		m.counts[i] = -1
	}
	m.inflight, m.known, m.next, m.starts = 0, 0, 0, []int{0}
	m.matchLine = -1
}

// Start begins rendering the current generation.
func (m *markdown) Start() tea.Cmd {
	m.gen++
	m.live.Store(int64(m.gen))
	m.reset()
	if m.search.query != "" && len(m.hits) > 0 {
		m.waiting = m.cur // move to the match again once it is laid out
	}
	var cmds []tea.Cmd
	for range markdownWorkers {
		cmds = append(cmds, m.passNext())
	}
	return tea.Batch(cmds...)
}

// render returns the Cmd that renders chunk i for this generation.
func (m *markdown) render(i int) tea.Cmd {
	m.busy[i] = true
	m.inflight++
	gen, src, defs, o, live := m.gen, m.chunks[i], m.defs, m.opts, m.live
	return func() tea.Msg {
		markdownRenders <- struct{}{}
		defer func() { <-markdownRenders }()
		if live.Load() != int64(gen) {
			return mdChunkMsg{gen: gen, i: i} // closed, or a new generation
		}
		return mdChunkMsg{gen: gen, i: i, lines: markdownLines(src, defs, o)}
	}
}

// markdownLines renders markdown chunk src with the document's link
// definitions defs for o (as plain text when glamour gives nothing) into
// lines without blank lines at either end. It is slow: call it only inside
// a Cmd.
func markdownLines(src, defs []byte, o render.Options) []string {
	out, err := render.MarkdownChunk(src, defs, o)
	if err != nil && out == "" {
		out = render.Text(src, o)
	}
	return trimBlankEdges(splitLines(out))
}

// passNext continues the first pass, which learns every chunk's line count,
// while fewer than markdownWorkers renders are in flight.
func (m *markdown) passNext() tea.Cmd {
	for m.next < len(m.chunks) && (m.counts[m.next] >= 0 || m.busy[m.next]) {
		m.next++
	}
	if m.next >= len(m.chunks) || m.inflight >= markdownWorkers {
		return nil
	}
	return m.render(m.next)
}

// trimBlankEdges drops blank lines at the start and end of a chunk, so the
// joins between chunks get exactly one blank line.
func trimBlankEdges(lines []string) []string {
	blank := func(s string) bool { return strings.TrimSpace(ansi.Strip(s)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Reflow re-renders for o, keeping the scroll position.
func (m *markdown) Reflow(o render.Options) tea.Cmd {
	if t := m.total(); t > 0 {
		m.frac = float64(m.top) / float64(t)
	}
	m.opts = codeScroll(o)
	return m.Start()
}

// SetSize implements body.
func (m *markdown) SetSize(w, h int) {
	m.w, m.h = w, h
	m.clamp()
}

// Typing implements body.
func (m *markdown) Typing() bool { return m.search.open }

// total is the number of lines laid out so far.
func (m *markdown) total() int { return m.starts[m.known] }

// sep is the blank line after chunk c: one between chunks with content.
func (m *markdown) sep(c int) int {
	if m.counts[c] > 0 && c < len(m.chunks)-1 {
		return 1
	}
	return 0
}

// bodyH is the lines available for content (one is the footer).
func (m *markdown) bodyH() int { return max(m.h-1, 1) }

func (m *markdown) clamp() {
	m.top = max(0, min(m.top, m.total()-m.bodyH()))
}

// chunkAt is the chunk holding line i (i < total).
func (m *markdown) chunkAt(i int) int {
	c := sort.SearchInts(m.starts[:m.known+1], i+1) - 1
	return max(0, min(c, m.known-1))
}

// window is the chunks whose styled lines are kept: those on screen and
// markdownWindow more on each side; hi < lo when nothing is laid out.
func (m *markdown) window() (lo, hi int) {
	if m.known == 0 {
		return 0, markdownWindow // the first screen, before any count
	}
	lo = m.chunkAt(m.top) - markdownWindow
	hi = m.chunkAt(min(m.top+m.bodyH(), m.total())-1) + markdownWindow
	if hi >= m.known-1 {
		hi += markdownWindow // the first pass has not reached what follows
	}
	return max(lo, 0), min(hi, len(m.chunks)-1)
}

// settle drops the styled lines of chunks outside the window (keeping the
// chunk a search is waiting for) and returns the Cmds that render the
// chunks inside it that are not held.
func (m *markdown) settle() tea.Cmd {
	lo, hi := m.window()
	keep := -1
	if m.waiting >= 0 {
		keep = m.hits[m.waiting].chunk
	}
	var cmds []tea.Cmd
	for c := range m.chunks {
		switch {
		case c == keep || c >= lo && c <= hi:
			if m.lines[c] == nil && !m.busy[c] {
				cmds = append(cmds, m.render(c))
			}
		default:
			m.lines[c] = nil
		}
	}
	return tea.Batch(cmds...)
}

// Update takes rendered chunks and keys.
func (m *markdown) Update(msg tea.Msg) (bool, tea.Cmd) {
	switch msg := msg.(type) {
	case mdChunkMsg:
		if msg.gen != m.gen {
			return true, nil
		}
		m.arrived(msg.i, msg.lines)
		return true, tea.Batch(m.settle(), m.passNext())
	case tea.KeyPressMsg:
		handled, cmd := m.key(msg)
		if !handled {
			return false, nil
		}
		return true, tea.Batch(cmd, m.settle())
	}
	return false, nil
}

// arrived records chunk i's rendering: its count (extending the laid-out
// prefix) and its lines.
func (m *markdown) arrived(i int, lines []string) {
	m.busy[i] = false
	m.inflight--
	if lines == nil {
		lines = []string{} // held, with nothing to show (nil means not held)
	}
	m.counts[i] = len(lines)
	m.lines[i] = lines
	grew := false
	for m.known < len(m.chunks) && m.counts[m.known] >= 0 {
		c := m.known
		m.starts = append(m.starts, m.starts[c]+m.counts[c]+m.sep(c))
		m.known++
		grew = true
	}
	if grew && m.frac > 0 {
		m.top = int(m.frac * float64(m.total()))
		if m.known == len(m.chunks) {
			m.frac = 0
		}
	}
	m.clamp()
	if m.waiting >= 0 {
		if c := m.hits[m.waiting].chunk; c < m.known && m.lines[c] != nil {
			m.moveTo(m.waiting)
		}
	}
}

// key handles scrolling and search keys; false for keys it does not use.
func (m *markdown) key(kp tea.KeyPressMsg) (bool, tea.Cmd) {
	if m.search.open {
		ev, cmd := m.search.Update(kp)
		if ev == searchRun {
			m.find()
		}
		return true, cmd
	}
	switch {
	case scrollKey(kp, m.keys.Scroll, &m.top, m.bodyH(), m.total()):
	case key.Matches(kp, m.keys.Scroll.CodeRight) && m.xoff < m.codeOverflow():
		m.xoff = min(m.xoff+m.codeStep(), m.codeOverflow())
		return true, nil
	case key.Matches(kp, m.keys.Scroll.CodeLeft) && m.xoff > 0:
		m.xoff = max(m.xoff-m.codeStep(), 0)
		return true, nil
	case key.Matches(kp, m.keys.Search.Start):
		return true, m.search.Open()
	case key.Matches(kp, m.keys.Search.Next) && m.search.query != "":
		m.step(1)
	case key.Matches(kp, m.keys.Search.Prev) && m.search.query != "":
		m.step(-1)
	case key.Matches(kp, m.keys.Search.Next, m.keys.Search.Prev):
		m.status = noSearchYet
		return true, nil
	default:
		return false, nil
	}
	m.frac = 0 // the person moved: a pending reflow position no longer applies
	m.clamp()
	return true, nil
}

// find collects every occurrence of the query (case-insensitive) in the
// chunks' source and moves to the first at or after the screen.
func (m *markdown) find() {
	m.hits, m.cur, m.waiting, m.matchLine = m.hits[:0], 0, -1, -1
	q := []byte(strings.ToLower(m.search.query))
	if len(q) == 0 {
		m.status = ""
		return
	}
	for c, src := range m.chunks {
		low := bytes.ToLower(src)
		for off, nth := 0, 0; ; nth++ {
			k := bytes.Index(low[off:], q)
			if k < 0 {
				break
			}
			off += k
			m.hits = append(m.hits, mdHit{chunk: c, nth: nth, frac: float64(off) / float64(max(len(low), 1))})
			off += len(q)
		}
	}
	if len(m.hits) == 0 {
		m.status = fmt.Sprintf("no match for %q", m.search.query)
		return
	}
	if m.known > 0 {
		here := m.chunkAt(m.top)
		for i, h := range m.hits {
			if h.chunk >= here {
				m.cur = i
				break
			}
		}
	}
	m.goTo(m.cur)
}

// step moves to the next (+1) or previous (-1) match, wrapping around.
func (m *markdown) step(d int) {
	if len(m.hits) == 0 {
		m.find()
		return
	}
	m.goTo((m.cur + d + len(m.hits)) % len(m.hits))
}

// goTo makes hit i current: the view moves now when its chunk is laid out
// and held, else once the chunk arrives (settle renders it).
func (m *markdown) goTo(i int) {
	m.cur = i
	m.status = fmt.Sprintf("match %d/%d for %q", i+1, len(m.hits), m.search.query)
	if c := m.hits[i].chunk; c < m.known && m.lines[c] != nil {
		m.moveTo(i)
		return
	}
	m.waiting = i
	m.status += " · rendering…"
}

// moveTo scrolls to hit i, whose chunk is laid out and held: the line is
// the nth rendered line showing the query, or, when the query matched
// markup the rendering hides, the line at the same share of the chunk.
func (m *markdown) moveTo(i int) {
	h := m.hits[i]
	m.waiting = -1
	m.status = fmt.Sprintf("match %d/%d for %q", i+1, len(m.hits), m.search.query)
	q := strings.ToLower(m.search.query)
	var found []int
	for k, l := range m.lines[h.chunk] {
		if strings.Contains(strings.ToLower(ansi.Strip(l)), q) {
			found = append(found, k)
		}
	}
	k := int(h.frac * float64(m.counts[h.chunk]))
	if len(found) > 0 {
		k = found[min(h.nth, len(found)-1)]
	}
	m.matchLine = m.starts[h.chunk] + min(k, max(m.counts[h.chunk]-1, 0))
	m.showInCode(m.line(m.matchLine), q)
	if m.matchLine < m.top || m.matchLine >= m.top+m.bodyH() {
		m.top = m.matchLine - min(3, m.bodyH()/4)
	}
	m.frac = 0
	m.clamp()
}

// line is line i of the document: a held chunk's styled line, the blank
// between chunks, or blank while the chunk renders.
func (m *markdown) line(i int) string {
	c := m.chunkAt(i)
	k := i - m.starts[c]
	if k >= m.counts[c] || m.lines[c] == nil {
		return ""
	}
	return m.lines[c][k]
}

// View draws the visible lines and the footer.
func (m *markdown) View() string {
	match := -1
	if m.search.query != "" {
		match = m.matchLine
	}
	var b strings.Builder
	drawWindow(&b, m.top, m.bodyH(), m.total(), m.w, match, func(i int) string { return m.scrolled(m.line(i)) })
	b.WriteString(m.footer())
	return b.String()
}

// footer is the search prompt, or the position, progress and status.
func (m *markdown) footer() string {
	if m.search.open {
		return m.search.View(m.w)
	}
	parts := []string{position(m.top, m.bodyH(), m.total())}
	if m.xoff > 0 {
		parts = append(parts, fmt.Sprintf("code from column %d", m.xoff+1))
	}
	if m.known < len(m.chunks) {
		parts = append(parts, fmt.Sprintf("rendering %d%%…", 100*m.known/len(m.chunks)))
	} else if lo, hi := m.window(); m.someMissing(lo, hi) {
		parts = append(parts, "rendering…")
	}
	if m.status != "" {
		parts = append(parts, m.status)
	}
	return common.Trunc(m.com.Styles.Muted.Render(strings.Join(parts, " · ")), m.w)
}

// someMissing reports whether a chunk on screen is still rendering.
func (m *markdown) someMissing(lo, hi int) bool {
	for c := lo; c <= hi && c < m.known; c++ {
		if m.lines[c] == nil && m.counts[c] > 0 {
			s, e := m.starts[c], m.starts[c]+m.counts[c]
			if e > m.top && s < m.top+m.bodyH() {
				return true
			}
		}
	}
	return false
}

// held is how many chunks have styled lines in memory.
func (m *markdown) held() int {
	n := 0
	for _, l := range m.lines {
		if l != nil {
			n++
		}
	}
	return n
}

// HelpKeys implements body: with code cut at the screen's edge, the key
// that scrolls it takes the place of ↑ (? lists both).
func (m *markdown) HelpKeys() []key.Binding {
	nav := scrollHelp(m.keys.Scroll, m.total(), m.bodyH())
	s := m.keys.Scroll
	switch {
	case m.xoff < m.codeOverflow():
		nav = append([]key.Binding{s.CodeRight}, nav[min(1, len(nav)):]...)
	case m.xoff > 0:
		nav = append([]key.Binding{s.CodeLeft}, nav[min(1, len(nav)):]...)
	}
	return m.search.helpKeys(nav...)
}

// FullHelpKeys implements fullHelper.
func (m *markdown) FullHelpKeys() []key.Binding {
	nav := scrollFullHelp(m.keys.Scroll, m.total(), m.bodyH())
	if m.xoff > 0 || m.codeOverflow() > 0 {
		nav = append(nav, m.keys.Scroll.CodeLeft, m.keys.Scroll.CodeRight)
	}
	return m.search.fullHelpKeys(nav...)
}

// splitCode cuts a rendered line into its head (margin, quote bars), a
// code line's text and its tail; ok is false for a line that is not code.
func splitCode(l string) (head, code, tail string, ok bool) {
	head, rest, ok := strings.Cut(l, render.CodeStart)
	if !ok {
		return l, "", "", false
	}
	code, tail, _ = strings.Cut(rest, render.CodeEnd)
	return head, code, tail, true
}

// codeRoom is the cells a code line with head has on screen.
func (m *markdown) codeRoom(head string) int { return max(m.w-common.Width(head), 2) }

// codeStep is how far one code key scrolls: half the screen.
func (m *markdown) codeStep() int { return max(m.w/2, 1) }

// codeOverflow is how far the widest code line on screen reaches past its
// room: how far right the code can scroll (0: all of it shows).
func (m *markdown) codeOverflow() int {
	over := 0
	for i := m.top; i < min(m.total(), m.top+m.bodyH()); i++ {
		if head, code, _, ok := splitCode(m.line(i)); ok {
			over = max(over, common.Width(code)-m.codeRoom(head))
		}
	}
	return over
}

// scrolled is line l as drawn: a code line shows the room's worth of its
// text from column xoff, "‹" first when text is scrolled off to the left
// and "›" last when more follows on the right; other lines as they are.
func (m *markdown) scrolled(l string) string {
	head, code, tail, ok := splitCode(l)
	if !ok {
		return l
	}
	room, cw := m.codeRoom(head), common.Width(code)
	if m.xoff == 0 && cw <= room {
		return head + code + tail
	}
	muted := m.com.Styles.Muted
	from, to := m.xoff, m.xoff+room
	var lead, trail string
	if m.xoff > 0 && cw > 0 {
		from++
		lead = muted.Render("‹")
	}
	if cw > to {
		to--
		trail = muted.Render("›")
	}
	shown := ""
	if to > from {
		shown = common.TruncTail(ansi.Cut(code, from, to), to-from, "")
	}
	return head + lead + shown + trail + tail
}

// showInCode scrolls code sideways so that the query q (lower case) on
// line l shows, when l is a code line.
func (m *markdown) showInCode(l, q string) {
	head, code, _, ok := splitCode(l)
	if !ok {
		return
	}
	plain := strings.ToLower(ansi.Strip(code))
	i := strings.Index(plain, q)
	if i < 0 {
		return
	}
	col, room := common.Width(plain[:i]), m.codeRoom(head)
	end := col + common.Width(q)
	if col >= m.xoff+1 && end <= m.xoff+room-1 || m.xoff == 0 && end <= room-1 {
		return
	}
	m.xoff = max(0, min(col-room/4, common.Width(plain)-room))
}
