package dialog

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"modbay/internal/words"
	"modbay/render"
	"modbay/ui/common"
)

// JumpEntry is one place the jump prompt can go: a module, or a
// capability (an MCP server's tool) of one.
type JumpEntry struct {
	// ID is what is typed and matched first ("notes", "notes.report");
	// Title is matched too and shown beside it. Both are the module's:
	// sanitized when drawn.
	ID, Title string
	// Kind is the entry's kind as shown: "module", "capability", "tool".
	Kind string
}

// JumpKeyMap is the jump prompt's bindings.
type JumpKeyMap struct {
	Up, Down, Complete, Go, Cancel key.Binding
}

// DefaultJumpKeyMap returns ↑/↓ to pick, tab to complete, enter to go,
// esc to cancel.
func DefaultJumpKeyMap() JumpKeyMap {
	return JumpKeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "previous match")),
		Down:     key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "next match")),
		Complete: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete")),
		Go:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "go")),
		Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// ActionJump answers the jump prompt with the entry chosen (an index into
// the entries it was opened with).
type ActionJump struct{ Index int }

func (ActionJump) isAction() {}

// maxJumpShown is how many matches the prompt lists at most.
const maxJumpShown = 8

// Jump is the ":" prompt: it fuzzy-matches what is typed against module
// and capability ids and titles (FuzzyScore) and lists the best matches,
// best first.
type Jump struct {
	com     *common.Common
	entries []JumpEntry
	input   textinput.Model
	keys    JumpKeyMap
	// matches are indices into entries, best first; sel is the chosen one.
	matches []int
	sel     int
	query   string
}

// NewJump opens the jump prompt over entries.
func NewJump(com *common.Common, entries []JumpEntry) *Jump {
	in := textinput.New()
	in.Prompt = ": "
	in.Placeholder = "module or capability id"
	in.SetStyles(com.Styles.TextInput)
	in.Focus()
	j := &Jump{com: com, entries: entries, input: in, keys: DefaultJumpKeyMap()}
	j.refilter()
	return j
}

// Matches returns the entries matching the query, best first.
func (j *Jump) Matches() []JumpEntry {
	out := make([]JumpEntry, len(j.matches))
	for i, x := range j.matches {
		out[i] = j.entries[x]
	}
	return out
}

// refilter ranks the entries for the query: every entry, in its order,
// for an empty one.
func (j *Jump) refilter() {
	q := j.input.Value()
	if q == j.query && j.matches != nil {
		return
	}
	j.query, j.sel = q, 0
	type scored struct{ i, s int }
	var sc []scored
	for i, e := range j.entries {
		s, ok := FuzzyScore(q, e.ID)
		if t, tok := FuzzyScore(q, e.Title); tok && (!ok || t/2 > s) {
			// A title match counts half: the id is what is typed.
			s, ok = t/2, true
		}
		if ok {
			sc = append(sc, scored{i, s})
		}
	}
	slices.SortStableFunc(sc, func(a, b scored) int { return b.s - a.s })
	j.matches = make([]int, len(sc))
	for i, x := range sc {
		j.matches[i] = x.i
	}
}

// Update implements Dialog.
func (j *Jump) Update(msg tea.Msg) (Action, tea.Cmd) {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(kp, j.keys.Cancel):
			return ActionClose{}, nil
		case key.Matches(kp, j.keys.Go):
			if len(j.matches) == 0 {
				return nil, nil
			}
			return ActionJump{Index: j.matches[j.sel]}, nil
		case key.Matches(kp, j.keys.Up):
			j.sel = max(j.sel-1, 0)
			return nil, nil
		case key.Matches(kp, j.keys.Down):
			j.sel = min(j.sel+1, max(len(j.matches)-1, 0))
			return nil, nil
		case key.Matches(kp, j.keys.Complete):
			if len(j.matches) > 0 {
				j.input.SetValue(j.entries[j.matches[j.sel]].ID)
				j.input.CursorEnd()
				j.refilter()
			}
			return nil, nil
		}
	}
	var cmd tea.Cmd
	j.input, cmd = j.input.Update(msg)
	j.refilter()
	return nil, cmd
}

// ShortHelp implements Dialog.
func (j *Jump) ShortHelp() []key.Binding {
	if len(j.matches) == 0 {
		return []key.Binding{j.keys.Cancel}
	}
	return []key.Binding{j.keys.Go, j.keys.Complete, j.keys.Down, j.keys.Cancel}
}

// FullHelp implements Dialog.
func (j *Jump) FullHelp() [][]key.Binding {
	if len(j.matches) == 0 {
		return [][]key.Binding{{j.keys.Cancel}}
	}
	return [][]key.Binding{{j.keys.Go, j.keys.Complete, j.keys.Up, j.keys.Down, j.keys.Cancel}}
}

// View implements Dialog: the input, then the best matches with the
// chosen one marked, and how many more there are.
func (j *Jump) View(width, height int) string {
	inner := boxWidth(j.com, width)
	j.input.SetWidth(max(inner-3, 5))
	st := j.com.Styles
	lines := []string{st.Title.Render("Jump to a module or capability"), "", j.input.View(), ""}
	shown := min(len(j.matches), maxJumpShown, max(height-8, 1))
	start := 0
	if j.sel >= shown {
		start = j.sel - shown + 1
	}
	for i := start; i < start+shown; i++ {
		e := j.entries[j.matches[i]]
		sel := i == j.sel
		id := render.SanitizeLine(e.ID)
		if sel {
			id = st.Selected.Render(id)
		}
		row := st.Cursor(sel) + id + "  " + st.Muted.Render(e.Kind)
		if t := render.SanitizeLine(e.Title); t != "" {
			row += st.Muted.Render(" · " + t)
		}
		lines = append(lines, common.Trunc(row, inner))
	}
	switch rest := len(j.matches) - shown; {
	case len(j.matches) == 0:
		lines = append(lines, st.Warning.Render("Nothing matches "+fmt.Sprintf("%q", render.SanitizeLine(j.query))+"."))
	case rest > 0:
		lines = append(lines, st.Muted.Render(fmt.Sprintf("… %d more %s", rest, words.Plural(rest, "match", "matches"))))
	}
	return box(j.com, strings.Join(lines, "\n"), inner)
}

// FuzzyScore matches query against s as a subsequence, case-insensitive:
// ok when every rune of query appears in s in order. The score favours a
// match at the start, runs of consecutive runes and runes at a word's start
// (after '.', '-', '_', '/', a space or a lower-to-upper change); an exact
// match scores highest. An empty query matches everything with score 0.
func FuzzyScore(query, s string) (score int, ok bool) {
	q := []rune(strings.ToLower(query))
	if len(q) == 0 {
		return 0, true
	}
	r := []rune(s)
	lower := []rune(strings.ToLower(s))
	if strings.EqualFold(query, s) {
		return 1000, true
	}
	qi, prev := 0, -2
	for i := 0; i < len(lower) && qi < len(q); i++ {
		if lower[i] != q[qi] {
			continue
		}
		score++
		switch {
		case i == 0:
			score += 8
		case prev == i-1:
			score += 5
		case isWordStart(r, i):
			score += 4
		}
		prev = i
		qi++
	}
	if qi < len(q) {
		return 0, false
	}
	// Shorter strings win among equal matches.
	return score*4 - len(r)/8, true
}

// isWordStart reports whether r[i] begins a word of an id or title.
func isWordStart(r []rune, i int) bool {
	p := r[i-1]
	return strings.ContainsRune("._-/ :", p) || unicode.IsLower(p) && unicode.IsUpper(r[i])
}
