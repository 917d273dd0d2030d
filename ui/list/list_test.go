package list

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/ui/common"
)

// item is a test item that counts how often its detail is built.
type item struct {
	name   string
	builds *int
}

func (i *item) FilterValue() string { return i.name }
func (i *item) Row(sel bool, w int) string {
	if sel {
		return "> " + i.name
	}
	return "  " + i.name
}
func (i *item) Detail(w int) string { *i.builds++; return "detail of " + i.name }

func newTestList(t *testing.T, names ...string) (*Model, *int) {
	t.Helper()
	com := common.New(true)
	l := New(com, DefaultKeyMap(), "filter", "nothing matches")
	n := 0
	var items []Item
	for _, s := range names {
		items = append(items, &item{name: s, builds: &n})
	}
	l.SetItems(items, nil)
	l.SetSize(80, 20)
	return l, &n
}

func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
}

func TestFilterCursorOpenAndDetailCache(t *testing.T) {
	l, builds := newTestList(t, "alpha", "beta", "gamma")
	l.Update(press("down"))
	if it := l.Selected().(*item); it.name != "beta" {
		t.Fatalf("selected %q", it.name)
	}
	out := l.PaneView(18)
	l.PaneView(18)
	if !strings.Contains(out, "> beta") || !strings.Contains(out, "detail of beta") || *builds != 1 {
		t.Fatalf("pane (detail built %d times):\n%s", *builds, out)
	}
	// While the filter has the keys, j and q are text and enter only
	// keeps the filter: its help says so, not "open".
	l.Update(press("/"))
	for _, r := range "ga" {
		l.Update(press(string(r)))
	}
	if !l.Typing() || l.Len() != 1 || l.Selected().(*item).name != "gamma" {
		t.Fatalf("filter ga: typing %v, %d shown", l.Typing(), l.Len())
	}
	if h := l.ShortHelp(); h[0].Help().Desc != "keep filter" {
		t.Fatalf("enter while filtering is helped as %q", h[0].Help().Desc)
	}
	if act, _, _ := l.Update(press("enter")); act != nil || l.Typing() {
		t.Fatalf("first enter: action %v, typing %v", act, l.Typing())
	}
	act, _, _ := l.Update(press("enter"))
	if a, ok := act.(ActionOpen); !ok || a.Item.(*item).name != "gamma" {
		t.Fatalf("second enter: %#v", act)
	}
	// esc clears the kept filter; a key the list does not bind is not
	// handled (the screen's: back, quit).
	if _, _, handled := l.Update(press("esc")); !handled || l.Len() != 3 {
		t.Fatalf("esc: handled %v, %d shown", handled, l.Len())
	}
	if _, _, handled := l.Update(press("esc")); handled {
		t.Fatal("esc with no filter was taken by the list")
	}
	l.Update(press("/"))
	for _, r := range "zz" {
		l.Update(press(string(r)))
	}
	if out := l.PaneView(18); !strings.Contains(out, "nothing matches") || l.Selected() != nil {
		t.Fatalf("empty filter result:\n%s", out)
	}
}
