package list

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"modbay/ui/common"
	"modbay/ui/styles"
)

// Item is one row of a list. Items are compared by value for the detail
// cache, so an Item is a pointer (or another comparable value) that stays
// the same while what it shows does.
type Item interface {
	// FilterValue is the text the filter matches, case aside.
	FilterValue() string
	// Row draws the item in w cells; selected marks the cursor's row.
	Row(selected bool, w int) string
	// Detail draws everything about the item, w cells wide.
	Detail(w int) string
}

// KeyMap is a list's bindings.
type KeyMap struct {
	Up, Down key.Binding
	// ArrowUp and ArrowDown move while the filter takes j and k as text.
	ArrowUp, ArrowDown key.Binding
	// Top and Bottom jump to the first and last row.
	Top, Bottom key.Binding
	// Open asks for the selected item (ActionOpen).
	Open key.Binding
	// Filter gives the filter the keys.
	Filter key.Binding
	// AcceptFilter leaves the filter keeping its text (enter): it only
	// closes the filter, so its help must not say "open".
	AcceptFilter key.Binding
	// ClearFilter empties the filter (and leaves it).
	ClearFilter key.Binding
	// DetailUp and DetailDown scroll the detail pane from the list.
	DetailUp, DetailDown key.Binding
}

// DefaultKeyMap returns the lists' bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		ArrowUp:      key.NewBinding(key.WithKeys("up"), key.WithHelp("↑", "up")),
		ArrowDown:    key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "down")),
		Top:          key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/g", "first")),
		Bottom:       key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end/G", "last")),
		Open:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Filter:       key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		AcceptFilter: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
		ClearFilter:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter")),
		DetailUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "detail up")),
		DetailDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "detail down")),
	}
}

// Action is what a list asks of its screen.
type Action interface{ isListAction() }

// ActionOpen asks to open Item, the selected one.
type ActionOpen struct{ Item Item }

func (ActionOpen) isListAction() {}

// Model is a filterable list with a detail pane.
type Model struct {
	com   *common.Common
	keys  KeyMap
	items []Item
	// shown are the indexes of the items the filter keeps; cursor is a
	// row of shown.
	shown  []int
	cursor int
	// moved is set once the person moves the cursor: until then the
	// cursor stays on the first row while items arrive, instead of
	// following whichever item happened to come first.
	moved  bool
	filter Filter
	width  int
	height int
	detail detailScroll
	cache  detailCache
	// empty is the line shown when the filter keeps nothing.
	empty string
	// layout, when set, is told which items are about to be drawn and
	// in how many cells, before their rows are (table columns).
	layout func(shown []Item, w int)
	// above and below are how many rows the last drawing left out
	// before and after the visible ones.
	above, below int
	// share is the list's width in the wide layout in fifths of the
	// screen; 0 is the default (2).
	share int
}

// New returns an empty list whose filter shows placeholder and which says
// empty when the filter keeps nothing.
func New(com *common.Common, keys KeyMap, placeholder, empty string) *Model {
	return &Model{com: com, keys: keys, filter: NewFilter(com, placeholder), empty: empty}
}

// SetLayout sets a function told which items are drawn, and in how many
// cells, before their rows are drawn (a table computes its columns).
func (l *Model) SetLayout(f func(shown []Item, w int)) { l.layout = f }

// SetShare gives the list share fifths of a wide screen (1–4; the
// detail pane the rest): rows with columns take more than the default 2.
func (l *Model) SetShare(share int) { l.share = min(max(share, 1), 4) }

// Items returns every item, filtered or not.
func (l *Model) Items() []Item { return l.items }

// Len is how many items the filter keeps.
func (l *Model) Len() int { return len(l.shown) }

// SetItems replaces the items, keeping the cursor on the item same reports
// equal to the one it was on (once the person moved it; before, the
// cursor stays on the first row).
func (l *Model) SetItems(items []Item, same func(a, b Item) bool) {
	prev := l.Selected()
	l.items = items
	l.refilter()
	if !l.moved || prev == nil || same == nil {
		if !l.moved {
			l.cursor = 0
		}
		return
	}
	for i, idx := range l.shown {
		if same(l.items[idx], prev) {
			l.cursor = i
		}
	}
}

// Moved reports whether the person has moved the cursor (SetItems then
// keeps it on its item).
func (l *Model) Moved() bool { return l.moved }

// SelectWhere puts the cursor on the first shown item match accepts, as
// if the person had moved it there; false (cursor unchanged) when none
// does.
func (l *Model) SelectWhere(match func(Item) bool) bool {
	for i, idx := range l.shown {
		if match(l.items[idx]) {
			l.moved = true
			l.move(i)
			return true
		}
	}
	return false
}

// SetSize sets the list's area in cells.
func (l *Model) SetSize(w, h int) {
	l.width, l.height = w, h
	l.filter.SetWidth(max(w-4, 10))
}

// Width is the list's width in cells.
func (l *Model) Width() int { return l.width }

// Height is the list's height in lines.
func (l *Model) Height() int { return l.height }

// Selected returns the item under the cursor, or nil.
func (l *Model) Selected() Item {
	if l.cursor < 0 || l.cursor >= len(l.shown) {
		return nil
	}
	return l.items[l.shown[l.cursor]]
}

// Cursor is the cursor's row among the items the filter keeps.
func (l *Model) Cursor() int { return l.cursor }

// Typing reports whether keys go to the filter.
func (l *Model) Typing() bool { return l.filter.active }

// FilterValue is the filter's text.
func (l *Model) FilterValue() string { return l.filter.Value() }

// DetailScrolls reports whether the last drawn detail did not fit, so its
// scroll keys do something.
func (l *Model) DetailScrolls() bool { return l.detail.above+l.detail.below > 0 }

// Matcher is an Item that decides itself whether it matches the filter
// text (q: trimmed, lower-case), instead of "its filter value contains q".
type Matcher interface {
	MatchFilter(q string) bool
}

// refilter keeps the items whose filter value contains the filter text,
// case aside, or that match it themselves (Matcher).
func (l *Model) refilter() {
	q := strings.ToLower(strings.TrimSpace(l.filter.Value()))
	l.shown = l.shown[:0]
	for i, it := range l.items {
		keep := q == ""
		if !keep {
			if m, ok := it.(Matcher); ok {
				keep = m.MatchFilter(q)
			} else {
				keep = strings.Contains(strings.ToLower(it.FilterValue()), q)
			}
		}
		if keep {
			l.shown = append(l.shown, i)
		}
	}
	l.move(l.cursor)
}

// move puts the cursor on shown row i (clamped); a new selection shows its
// detail from the top.
func (l *Model) move(i int) {
	i = min(max(len(l.shown)-1, 0), max(0, i))
	if i != l.cursor {
		l.detail.off = 0
	}
	l.cursor = i
}

// Update handles msg. handled is false for a key the list does not bind
// (the screen's own: back, quit, rediscover…).
func (l *Model) Update(msg tea.Msg) (act Action, cmd tea.Cmd, handled bool) {
	if l.filter.active {
		if handled, changed, cmd := l.filter.Update(msg, l.keys); handled {
			if changed {
				l.refilter()
			}
			return nil, cmd, true
		}
	}
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil, false
	}
	k := l.keys
	switch {
	case key.Matches(kp, k.Up):
		l.moved = true
		l.move(l.cursor - 1)
	case key.Matches(kp, k.Down):
		l.moved = true
		l.move(l.cursor + 1)
	case key.Matches(kp, k.Top):
		l.moved = true
		l.move(0)
	case key.Matches(kp, k.Bottom):
		l.moved = true
		l.move(len(l.shown) - 1)
	case l.detail.Update(kp, k):
	case key.Matches(kp, k.Filter):
		return nil, l.filter.Focus(), true
	case key.Matches(kp, k.ClearFilter) && l.filter.Value() != "":
		l.filter.Clear()
		l.refilter()
	case key.Matches(kp, k.Open):
		if it := l.Selected(); it != nil {
			return ActionOpen{Item: it}, nil, true
		}
	default:
		return nil, nil, false
	}
	return nil, nil, true
}

// ShortHelp returns the list's bindings that apply now; a screen appends
// its own.
func (l *Model) ShortHelp() []key.Binding {
	k := l.keys
	if l.filter.active {
		return []key.Binding{k.AcceptFilter, k.ClearFilter}
	}
	var b []key.Binding
	if len(l.shown) > 1 {
		b = append(b, k.Up, k.Down)
	}
	if len(l.shown) > 0 {
		b = append(b, k.Open)
	}
	b = append(b, k.Filter)
	if l.filter.Value() != "" {
		b = append(b, k.ClearFilter)
	}
	return b
}

// EssentialHelp is the list's bindings a narrow help bar keeps: open (or,
// while the filter is typed, keeping it).
func (l *Model) EssentialHelp() []key.Binding {
	if l.filter.active {
		return []key.Binding{l.keys.AcceptFilter}
	}
	return []key.Binding{l.keys.Open}
}

// FullHelp returns the list's bindings that apply now, grouped.
func (l *Model) FullHelp() [][]key.Binding {
	k := l.keys
	if l.filter.active {
		var groups [][]key.Binding
		if len(l.shown) > 1 {
			groups = append(groups, []key.Binding{k.ArrowUp, k.ArrowDown})
		}
		if l.DetailScrolls() {
			groups = append(groups, []key.Binding{k.DetailUp, k.DetailDown})
		}
		return append(groups, []key.Binding{k.AcceptFilter, k.ClearFilter})
	}
	var groups [][]key.Binding
	if len(l.shown) > 1 {
		groups = append(groups, []key.Binding{k.Up, k.Down, k.Top, k.Bottom})
	}
	if len(l.shown) > 0 {
		groups = append(groups, []key.Binding{k.Open})
	}
	f := []key.Binding{k.Filter}
	if l.filter.Value() != "" {
		f = append(f, k.ClearFilter)
	}
	groups = append(groups, f)
	if l.DetailScrolls() {
		groups = append(groups, []key.Binding{k.DetailUp, k.DetailDown})
	}
	return groups
}

// FilterView is the filter line, or "" when the filter is not on screen.
func (l *Model) FilterView() string {
	if !l.filter.Shown() {
		return ""
	}
	return common.Trunc(l.filter.View(), l.width)
}

// PaneView draws the rows and the selected item's detail in the list's
// width and h lines (the screen's height less its own lines above).
func (l *Model) PaneView(h int) string {
	var detail string
	if it := l.Selected(); it != nil {
		dw := detailWidth(l.com, l.width, l.share)
		detail = l.cache.get(detailKey{item: it, width: dw, styles: l.com.Styles}, func() string {
			return it.Detail(dw)
		})
	}
	return splitPane(l.com, l.width, h, l.share, l.rows, l.Hidden, detail, len(l.shown), &l.detail)
}

// Hidden is how many rows the last drawing left out above and below the
// visible ones.
func (l *Model) Hidden() (above, below int) { return l.above, l.below }

// moreMark says how many rows are out of view, "↑ 2 more · ↓ 5 more"
// ("" when none is).
func moreMark(com *common.Common, above, below int) string {
	var parts []string
	if above > 0 {
		parts = append(parts, fmt.Sprintf("↑ %d more", above))
	}
	if below > 0 {
		parts = append(parts, fmt.Sprintf("↓ %d more", below))
	}
	return strings.Join(parts, " · ")
}

// window returns the first row shown and how many rows are shown when n
// rows scroll in h lines, the cursor in view; with marks, lines for "↑ N
// more" and "↓ N more" are taken from h where rows are out of view.
func window(cursor, n, h int, marks bool) (start, count int) {
	if n <= h || h <= 0 {
		return 0, min(n, max(h, 0))
	}
	if !marks || h < 3 {
		return scrollStart(cursor, n, h), h
	}
	count = h - 2
	start = scrollStart(cursor, n, count)
	// A mark is not needed at an end already in view: give its line to
	// a row.
	if start == 0 {
		count = h - 1
		start = 0
	} else if start+count >= n {
		count = h - 1
		start = n - count
	}
	return start, count
}

// rows draws the visible rows in w cells and h lines, the cursor's row in
// view; with marks, a line above and below says how many rows are out of
// view (the wide layout, where no rule carries that).
func (l *Model) rows(w, h int, marks bool) []string {
	l.above, l.below = 0, 0
	if len(l.shown) == 0 {
		lines := strings.Split(common.Note(l.empty, w), "\n")
		for i, s := range lines {
			lines[i] = l.com.Styles.Muted.Render(s)
		}
		return lines[:min(len(lines), max(h, 1))]
	}
	start, count := window(l.cursor, len(l.shown), h, marks)
	l.above, l.below = start, max(len(l.shown)-start-count, 0)
	if l.layout != nil {
		shown := make([]Item, len(l.shown))
		for i, idx := range l.shown {
			shown[i] = l.items[idx]
		}
		l.layout(shown, w)
	}
	var out []string
	mute := l.com.Styles.Muted
	if marks && l.above > 0 {
		out = append(out, mute.Render(moreMark(l.com, l.above, 0)))
	}
	for i := start; i < start+count; i++ {
		out = append(out, common.Trunc(l.items[l.shown[i]].Row(i == l.cursor, w), w))
	}
	if marks && l.below > 0 {
		out = append(out, mute.Render(moreMark(l.com, 0, l.below)))
	}
	return out
}

// scrollStart returns the first visible row keeping cursor in h rows.
func scrollStart(cursor, n, h int) int {
	if h <= 0 || n <= h {
		return 0
	}
	return max(0, min(cursor-h/2, n-h))
}

// detailKey is what a detail pane is built from: the selected item, the
// text width and the styles.
type detailKey struct {
	item   Item
	width  int
	styles *styles.Styles
}

// detailCache keeps the last detail pane built. A list is drawn on every
// frame (the spinner, each key), and a capability's detail compiles its
// request schema: it is built again only when what it shows changed.
type detailCache struct {
	key  detailKey
	text string
	ok   bool
}

// get returns the detail for key, building it when key is not the last.
func (c *detailCache) get(key detailKey, build func() string) string {
	if !c.ok || c.key != key {
		c.key, c.text, c.ok = key, build(), true
	}
	return c.text
}

// InvalidateDetail makes the next frame build the detail pane again: what
// it shows changed without the item changing (a server's log).
func (l *Model) InvalidateDetail() { l.cache.ok = false }

// KeyMap returns the list's bindings.
func (l *Model) KeyMap() KeyMap { return l.keys }
