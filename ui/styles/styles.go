package styles

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
)

// Palette is the handful of semantic colors every style is derived from.
type Palette struct {
	// Primary marks titles and the focused element.
	Primary color.Color
	// Secondary marks ids and secondary headings.
	Secondary color.Color
	// Fg is ordinary text; Muted is hints, descriptions and separators.
	Fg    color.Color
	Muted color.Color
	// Success, Warning and Danger color ok, needs-setup and failure states.
	Success color.Color
	Warning color.Color
	Danger  color.Color
	// BadgeFg is the text color on a colored badge.
	BadgeFg color.Color
}

// NewPalette returns the palette for a dark or light background.
func NewPalette(dark bool) Palette {
	ld := lipgloss.LightDark(dark)
	return Palette{
		Primary:   ld(lipgloss.Color("#5A3FC0"), lipgloss.Color("#A98BFF")),
		Secondary: ld(lipgloss.Color("#1F6F8B"), lipgloss.Color("#6FC3DF")),
		Fg:        ld(lipgloss.Color("#1A1A1A"), lipgloss.Color("#E4E4E4")),
		Muted:     ld(lipgloss.Color("#6B6B6B"), lipgloss.Color("#8A8A8A")),
		Success:   ld(lipgloss.Color("#1E7D32"), lipgloss.Color("#6BD178")),
		Warning:   ld(lipgloss.Color("#9A6700"), lipgloss.Color("#E8B949")),
		Danger:    ld(lipgloss.Color("#B3261E"), lipgloss.Color("#F2726A")),
		BadgeFg:   ld(lipgloss.Color("#FFFFFF"), lipgloss.Color("#1A1A1A")),
	}
}

// named is the palette colour a theme override names, nil for none.
func (p *Palette) named(name string) *color.Color {
	switch name {
	case "primary":
		return &p.Primary
	case "secondary":
		return &p.Secondary
	case "muted":
		return &p.Muted
	case "success":
		return &p.Success
	case "warning":
		return &p.Warning
	case "danger":
		return &p.Danger
	}
	return nil
}

// Styles is every style the cockpit draws with. Build it with New; a zero
// Styles renders plain text.
type Styles struct {
	// Dark and NoColor record how the styles were built.
	Dark    bool
	NoColor bool

	// Title is a screen title; Subtitle a section heading inside a screen.
	Title    lipgloss.Style
	Subtitle lipgloss.Style
	// Text is ordinary text, Muted hints and descriptions, ID module and
	// capability ids, Label the key column of key/value lines.
	Text  lipgloss.Style
	Muted lipgloss.Style
	ID    lipgloss.Style
	Label lipgloss.Style
	// Selected is the row under the cursor; Focused the focused form field
	// label. Both keep bold/reverse without color.
	Selected lipgloss.Style
	Focused  lipgloss.Style
	// Success, Warning and Error color inline text of that state.
	Success lipgloss.Style
	Warning lipgloss.Style
	Error   lipgloss.Style
	// Badge styles wrap a short status word (see Badge).
	BadgeOK      lipgloss.Style
	BadgeWarn    lipgloss.Style
	BadgeError   lipgloss.Style
	BadgeNeutral lipgloss.Style
	BadgeInfo    lipgloss.Style
	// Pane is the border around the detail pane; Dialog the border around
	// a dialog.
	Pane   lipgloss.Style
	Dialog lipgloss.Style
	// Help styles the bottom help bar.
	Help help.Styles
	// TextInput styles every one-line input (filters, prompts): the
	// bubbles defaults, or none without color; the cursor never blinks.
	TextInput textinput.Styles
}

// New builds the styles for a dark or light background; noColor drops every
// foreground and background color but keeps bold and reverse, so focus still
// shows (NO_COLOR, https://no-color.org).
func New(dark, noColor bool) *Styles { return NewWith(dark, noColor, nil) }

// NewWith is New with some palette colours overridden: colors maps
// "primary", "secondary", "muted", "success", "warning" or "danger" to a
// colour lipgloss reads ("#rrggbb", "#rgb", an ANSI number 0–255), as
// config.yaml's theme.colors gives them (validated there); other names
// are ignored.
func NewWith(dark, noColor bool, colors map[string]string) *Styles {
	p := NewPalette(dark)
	for name, c := range colors {
		if dst := p.named(name); dst != nil {
			*dst = lipgloss.Color(c)
		}
	}
	s := &Styles{Dark: dark, NoColor: noColor}
	fg := func(c color.Color) lipgloss.Style {
		if noColor {
			return lipgloss.NewStyle()
		}
		return lipgloss.NewStyle().Foreground(c)
	}
	badge := func(c color.Color) lipgloss.Style {
		if noColor {
			return lipgloss.NewStyle()
		}
		return lipgloss.NewStyle().Foreground(p.BadgeFg).Background(c).Padding(0, 1)
	}
	s.Title = fg(p.Primary).Bold(true)
	s.Subtitle = fg(p.Secondary).Bold(true)
	s.Text = fg(p.Fg)
	s.Muted = fg(p.Muted)
	s.ID = fg(p.Secondary)
	s.Label = fg(p.Muted)
	s.Selected = fg(p.Primary).Bold(true)
	s.Focused = fg(p.Primary).Bold(true)
	s.Success = fg(p.Success)
	s.Warning = fg(p.Warning)
	s.Error = fg(p.Danger)
	s.BadgeOK = badge(p.Success)
	s.BadgeWarn = badge(p.Warning)
	s.BadgeError = badge(p.Danger)
	s.BadgeNeutral = badge(p.Muted)
	s.BadgeInfo = badge(p.Secondary)
	border := lipgloss.NewStyle().Border(lipgloss.RoundedBorder())
	if !noColor {
		border = border.BorderForeground(p.Muted)
	}
	s.Pane = border.Padding(0, 1)
	dlg := lipgloss.NewStyle().Border(lipgloss.RoundedBorder())
	if !noColor {
		dlg = dlg.BorderForeground(p.Warning)
	}
	s.Dialog = dlg.Padding(0, 1)
	if noColor {
		plain := lipgloss.NewStyle()
		s.Help = help.Styles{
			Ellipsis: plain, ShortKey: plain.Bold(true), ShortDesc: plain, ShortSeparator: plain,
			FullKey: plain.Bold(true), FullDesc: plain, FullSeparator: plain,
		}
	} else {
		s.Help = help.DefaultStyles(dark)
		s.TextInput = textinput.DefaultStyles(dark)
	}
	s.TextInput.Cursor.Blink = false
	return s
}

// Badge renders word as a status badge in style st. Without color a badge
// is bracketed, "[ready]", so it still stands out from the text around it.
func (s *Styles) Badge(st lipgloss.Style, word string) string {
	if s.NoColor {
		return "[" + word + "]"
	}
	return st.Render(word)
}

// Cursor is the marker drawn before the selected row of a list.
func (s *Styles) Cursor(selected bool) string {
	if selected {
		return s.Selected.Render("›") + " "
	}
	return "  "
}
