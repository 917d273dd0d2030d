package viewer

import "charm.land/bubbles/v2/key"

// KeyMap is every binding of the artifact viewers, one nested group per
// concern; each body shows in the help bar only the groups that apply to it.
type KeyMap struct {
	// Scroll moves through any body.
	Scroll ScrollKeyMap
	// Search finds text (markdown, text, json, diagrams, timelines).
	Search SearchKeyMap
	// Table drives the table viewer.
	Table TableKeyMap
	// Tree drives the JSON tree.
	Tree TreeKeyMap
	// Text drives the plain text viewer.
	Text TextKeyMap
	// Pages pages through slides.
	Pages PagesKeyMap
	// Artifact acts on the file itself: save, open, copy, back.
	Artifact ArtifactKeyMap
}

// ScrollKeyMap moves the view.
type ScrollKeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	// Left and Right scroll sideways (the table moves its column cursor).
	Left, Right key.Binding
	// CodeLeft and CodeRight scroll a markdown document's code blocks
	// sideways (their lines are kept whole, never wrapped).
	CodeLeft, CodeRight key.Binding
}

// SearchKeyMap starts a search and steps through its matches.
type SearchKeyMap struct {
	Start, Next, Prev, Accept, Cancel key.Binding
}

// TableKeyMap sorts, filters and opens rows.
type TableKeyMap struct {
	Sort, Filter, Detail, Close key.Binding
	// AsCSV reads a TSV whose quoting is ambiguous as CSV (and back).
	AsCSV key.Binding
}

// TreeKeyMap expands and collapses the JSON tree; on a leaf, Value opens
// its whole value in a pane that Close closes.
type TreeKeyMap struct {
	Toggle, Value, Close, ExpandAll, CollapseAll, CopyPath key.Binding
}

// TextKeyMap toggles wrapping and line numbers.
type TextKeyMap struct {
	Wrap, LineNumbers key.Binding
}

// PagesKeyMap moves between slides (and opens a grid's image).
type PagesKeyMap struct {
	Next, Prev, Open key.Binding
}

// ArtifactKeyMap acts on the artifact file.
type ArtifactKeyMap struct {
	// Save copies the file into a chosen directory (never overwriting).
	Save key.Binding
	// Open hands the file to the system's opener (local display only).
	Open key.Binding
	// Pager opens a sanitized copy in $PAGER (else less), Editor in
	// $VISUAL or $EDITOR, with the cockpit suspended: over SSH too.
	Pager, Editor key.Binding
	// Copy puts the saved (or staged) path on the clipboard: through tmux
	// inside tmux, else with OSC 52 (package clipboard).
	Copy key.Binding
	// Source toggles between the rendering and the file's own text (for
	// media and binary files: what the file is and a hex head).
	Source key.Binding
	// Markdown shows plain text rendered as markdown (and back).
	Markdown key.Binding
	// Back leaves the viewer.
	Back key.Binding
}

// DefaultKeyMap returns the viewers' bindings.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Scroll: ScrollKeyMap{
			Up:        b("↑/k", "up", "up", "k"),
			Down:      b("↓/j", "down", "down", "j"),
			PageUp:    b("pgup", "page up", "pgup", "ctrl+u", "b"),
			PageDown:  b("pgdn", "page down", "pgdown", "ctrl+d", "space", "f"),
			Top:       b("g", "top", "g", "home"),
			Bottom:    b("G", "bottom", "G", "end"),
			Left:      b("←/h", "left", "left", "h"),
			Right:     b("→/l", "right", "right", "l"),
			CodeLeft:  b("←/h", "code left", "left", "h"),
			CodeRight: b("→/l", "code right", "right", "l"),
		},
		Search: SearchKeyMap{
			Start:  b("/", "search", "/"),
			Next:   b("n", "next match", "n"),
			Prev:   b("N", "previous match", "N"),
			Accept: b("enter", "find", "enter"),
			Cancel: b("esc", "cancel", "esc"),
		},
		Table: TableKeyMap{
			Sort:   b("S", "sort by column", "S"),
			Filter: b("/", "filter rows", "/"),
			Detail: b("enter", "row detail", "enter"),
			Close:  b("esc", "close", "esc"),
			AsCSV:  b("C", "read as CSV/TSV", "C"),
		},
		Tree: TreeKeyMap{
			Toggle:      b("enter", "expand/collapse", "enter", "tab"),
			Value:       b("enter", "whole value", "enter"),
			Close:       b("esc", "close", "esc"),
			ExpandAll:   b("e", "expand all", "e"),
			CollapseAll: b("c", "collapse all", "c"),
			CopyPath:    b("y", "copy JSON path", "y"),
		},
		Text: TextKeyMap{
			Wrap:        b("w", "wrap", "w"),
			LineNumbers: b("#", "line numbers", "#"),
		},
		Pages: PagesKeyMap{
			Next: b("→/l", "next", "right", "l", "pgdown", "space"),
			Prev: b("←/h", "previous", "left", "h", "pgup"),
			Open: b("enter", "open", "enter"),
		},
		Artifact: ArtifactKeyMap{
			Save:     b("s", "save a copy", "s"),
			Open:     b("o", "open", "o"),
			Pager:    b("O", "open in pager", "O"),
			Editor:   b("E", "edit a copy", "E"),
			Copy:     b("y", "copy file path", "y"),
			Source:   b("v", "source/rendered", "v"),
			Markdown: b("m", "as markdown/text", "m"),
			Back:     b("esc", "back", "esc"),
		},
	}
}
