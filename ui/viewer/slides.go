package viewer

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/render"
)

// slideMsg is one rendered slide of generation gen.
type slideMsg struct {
	tag
	gen, page int
	lines     []string
}

// slides pages through markdown slides split on "---" (render.SplitSlides)
// with ←/→; each page is rendered by glamour in a Cmd when first shown and
// kept until the width or theme changes.
type slides struct {
	pager
	pages []string
	// defs are the deck's link reference definitions, given to every
	// page's render (a page is rendered alone).
	defs     []byte
	rendered map[int][]string
	page     int
	gen      int
	opts     render.Options
}

// newSlides splits the deck; it runs in the load Cmd.
func newSlides(in loadInput, src []byte) *slides {
	s := &slides{pager: newPager(in.com, in.keys), pages: render.SplitSlides(src), defs: render.LinkDefinitions(src), rendered: map[int][]string{}, opts: in.opts}
	if len(s.pages) == 0 {
		s.pages = []string{""}
	}
	return s
}

// Start renders the first page.
func (s *slides) Start() tea.Cmd { return s.show() }

// show puts the current page in the pager, rendering it first if needed.
func (s *slides) show() tea.Cmd {
	s.pager.status = fmt.Sprintf("slide %d of %d", s.page+1, len(s.pages))
	if l, ok := s.rendered[s.page]; ok {
		s.pager.SetLines(l, nil)
		s.pager.top = 0
		return nil
	}
	gen, page, src, defs, o := s.gen, s.page, s.pages[s.page], s.defs, s.opts
	return func() tea.Msg { return slideMsg{gen: gen, page: page, lines: markdownLines([]byte(src), defs, o)} }
}

// Reflow drops the rendered pages and renders the current one for o.
func (s *slides) Reflow(o render.Options) tea.Cmd {
	s.gen++
	s.opts = o
	clear(s.rendered)
	return s.show()
}

// Update pages and scrolls.
func (s *slides) Update(msg tea.Msg) (bool, tea.Cmd) {
	switch msg := msg.(type) {
	case slideMsg:
		if msg.gen == s.gen {
			s.rendered[msg.page] = msg.lines
			if msg.page == s.page {
				s.pager.SetLines(msg.lines, nil)
				s.pager.top = 0
			}
		}
		return true, nil
	case tea.KeyPressMsg:
		if !s.pager.Typing() {
			switch {
			case key.Matches(msg, s.keys.Pages.Next):
				if s.page < len(s.pages)-1 {
					s.page++
					return true, s.show()
				}
				return true, nil
			case key.Matches(msg, s.keys.Pages.Prev):
				if s.page > 0 {
					s.page--
					return true, s.show()
				}
				return true, nil
			}
		}
		return s.pager.Update(msg)
	}
	return false, nil
}

// HelpKeys implements body.
func (s *slides) HelpKeys() []key.Binding {
	return append([]key.Binding{s.keys.Pages.Prev, s.keys.Pages.Next}, s.pager.helpKeys()...)
}
