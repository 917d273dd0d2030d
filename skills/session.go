package skills

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Load modes (the runtime's load arguments): how Session.Load treats the
// skills already active.
const (
	// LoadReplace makes the loaded skills the only active ones (the
	// default).
	LoadReplace = "replace"
	// LoadAdd adds them; one already active is refreshed in place.
	LoadAdd = "add"
)

// Handle names one skill for an agent: the listed (perhaps
// disambiguated) name and the location it was found at.
type Handle struct {
	Name     string `json:"name"`
	Location string `json:"location"`
}

// Active is one skill loaded into a session: what the agent is given.
type Active struct {
	Handle Handle `json:"handle"`
	// Insert is InsertInstructions or InsertUserMessage.
	Insert string `json:"insert"`
	// Text is the body as rendered with its arguments.
	Text string `json:"text"`
	// Tokens is the estimate; Declared says a module declared it (else it
	// is modbay's, shown with "≈").
	Tokens   int  `json:"tokens"`
	Declared bool `json:"declared,omitempty"`
}

// Session is a session's active skills, in load order. The zero value is
// empty and ready.
type Session struct {
	active []Active
}

// Load activates skills: with LoadReplace (or "") they become the only
// active ones; with LoadAdd they are appended, and one already active
// (same handle) is replaced where it stands. It returns the handles now
// active.
func (s *Session) Load(skills []Active, mode string) ([]Handle, error) {
	switch mode {
	case "", LoadReplace:
		s.active = nil
	case LoadAdd:
	default:
		return s.Handles(), fmt.Errorf("load mode %q is neither %q nor %q", mode, LoadReplace, LoadAdd)
	}
	for _, a := range skills {
		if i := slices.IndexFunc(s.active, func(b Active) bool { return b.Handle == a.Handle }); i >= 0 {
			s.active[i] = a
		} else {
			s.active = append(s.active, a)
		}
	}
	return s.Handles(), nil
}

// Unload deactivates the skills named, or every one when all is true. A
// handle not active is ignored. It returns the handles still active.
func (s *Session) Unload(handles []Handle, all bool) []Handle {
	if all {
		s.active = nil
		return s.Handles()
	}
	s.active = slices.DeleteFunc(s.active, func(a Active) bool { return slices.Contains(handles, a.Handle) })
	return s.Handles()
}

// IsActive reports whether h is active.
func (s *Session) IsActive(h Handle) bool {
	return slices.ContainsFunc(s.active, func(a Active) bool { return a.Handle == h })
}

// Handles lists the active skills' handles in load order (never nil).
func (s *Session) Handles() []Handle {
	out := make([]Handle, 0, len(s.active))
	for _, a := range s.active {
		out = append(out, a.Handle)
	}
	return out
}

// Active returns the active skills in load order.
func (s *Session) Active() []Active { return slices.Clone(s.active) }

// TokenTotal is the active skills' summed estimate as shown: "≈ N
// tokens" when any part is modbay's estimate, "N tokens" when all were
// declared, "0 tokens" for none.
func (s *Session) TokenTotal() string {
	n, estimated := 0, false
	for _, a := range s.active {
		n += a.Tokens
		estimated = estimated || !a.Declared
	}
	if estimated {
		return fmt.Sprintf("≈ %d tokens", n)
	}
	return fmt.Sprintf("%d tokens", n)
}

// CatalogEntry is one skill as the agent's catalog lists it.
type CatalogEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Location is the skill's file (SKILL.md), absolute.
	Location string `json:"location"`
}

// AvailableSkills is the catalog block the Agent Skills integration
// guidance gives agents: <available_skills> holding one <skill> with
// <name>, <description> and <location> per entry, every value XML-escaped.
func AvailableSkills(entries []CatalogEntry) string {
	var b strings.Builder
	b.WriteString("<available_skills>\n")
	for _, e := range entries {
		b.WriteString("  <skill>\n")
		fmt.Fprintf(&b, "    <name>%s</name>\n", xmlEscape(e.Name))
		fmt.Fprintf(&b, "    <description>%s</description>\n", xmlEscape(e.Description))
		fmt.Fprintf(&b, "    <location>%s</location>\n", xmlEscape(e.Location))
		b.WriteString("  </skill>\n")
	}
	b.WriteString("</available_skills>\n")
	return b.String()
}

// xmlEscape escapes &, <, >, " and ' for XML text.
func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}

// WhatTheAgentSees composes one Markdown document: the catalog block of
// every available skill (in a fenced block, as the agent receives it),
// then each active skill's text under its name with its insert mode, and
// the total token estimate.
func WhatTheAgentSees(catalog []CatalogEntry, s *Session) string {
	var b strings.Builder
	b.WriteString("# What the agent sees\n\n")
	fmt.Fprintf(&b, "## Available skills (%d)\n\n", len(catalog))
	b.WriteString(fence(AvailableSkills(catalog), "xml"))
	act := s.Active()
	fmt.Fprintf(&b, "\n## Active skills (%d, %s)\n", len(act), s.TokenTotal())
	if len(act) == 0 {
		b.WriteString("\nNone loaded.\n")
	}
	for _, a := range act {
		fmt.Fprintf(&b, "\n### %s\n\n*inserted as %s · %s*\n\n", a.Handle.Name, a.Insert, TokenText(declaredOrZero(a), len(a.Text)))
		b.WriteString(strings.TrimRight(a.Text, "\n"))
		b.WriteString("\n")
	}
	return b.String()
}

// declaredOrZero is a's tokens when declared (TokenText then shows them
// as declared), else 0 (TokenText estimates from the text).
func declaredOrZero(a Active) int {
	if a.Declared {
		return a.Tokens
	}
	return 0
}

// fence wraps s in a Markdown code fence longer than any backtick run in
// it, with info string lang.
func fence(s, lang string) string {
	n, run := 3, 0
	for _, r := range s {
		if r == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + f + "\n"
}

// ActivateRecord is a usable folder skill r as an active skill, its body
// rendered with values (the render result says what was applied).
func ActivateRecord(r Record, values map[string]string) (Active, RenderResult) {
	res := Render(r.Body, r.Arguments, values)
	return Active{
		Handle: Handle{Name: r.Key.Name, Location: r.Key.Location},
		Insert: r.Insert, Text: res.Text, Tokens: EstimateTokens(len(res.Text)),
	}, res
}

// CatalogOf is r as a catalog entry: its listed name, description and
// SKILL.md's path.
func CatalogOf(r Record) CatalogEntry {
	return CatalogEntry{Name: r.Key.Name, Description: r.Description, Location: filepath.Join(r.Key.Location, FileName)}
}

// Name is how a module document is listed: "<module>/<id>".
func (doc Doc) Name() string { return doc.Module + "/" + doc.ID }

// Catalog is doc as a catalog entry: its name, summary (else title) and
// file path.
func (doc Doc) Catalog() CatalogEntry {
	desc := doc.Summary
	if desc == "" {
		desc = doc.Title
	}
	return CatalogEntry{Name: doc.Name(), Description: desc, Location: filepath.Join(doc.Dir, filepath.FromSlash(doc.Path))}
}

// Activate is a loaded module document (data, as Load returned it) as an
// active skill; an overlay is inserted as instructions. The module's
// declared token estimate is kept when it gave one.
func (doc Doc) Activate(data []byte) Active {
	text := doc.Body(data)
	a := Active{Handle: Handle{Name: doc.Name(), Location: doc.Dir}, Insert: InsertInstructions, Text: text, Tokens: doc.Tokens, Declared: doc.Tokens > 0}
	if !a.Declared {
		a.Tokens = EstimateTokens(len(text))
	}
	return a
}
