package skills

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionLoadUnload: replace (the default) and add, a handle loaded
// twice refreshed in place, unload some or all, the token total.
func TestSessionLoadUnload(t *testing.T) {
	a := Active{Handle: Handle{"a", "/s/a"}, Text: "A", Tokens: 10, Declared: true}
	b := Active{Handle: Handle{"b", "/s/b"}, Text: "B", Tokens: 5, Declared: true}
	c := Active{Handle: Handle{"c", "/s/c"}, Text: "C", Tokens: 1}
	var s Session
	if h, _ := s.Load([]Active{a, b}, ""); fmt.Sprint(h) != "[{a /s/a} {b /s/b}]" || s.TokenTotal() != "15 tokens" {
		t.Fatalf("load: %v %s", h, s.TokenTotal())
	}
	a2 := a
	a2.Text = "A2"
	if h, _ := s.Load([]Active{c, a2}, LoadAdd); fmt.Sprint(h) != "[{a /s/a} {b /s/b} {c /s/c}]" || s.Active()[0].Text != "A2" || s.TokenTotal() != "≈ 16 tokens" {
		t.Fatalf("add: %v %s", h, s.TokenTotal())
	}
	if h, _ := s.Load([]Active{b}, LoadReplace); fmt.Sprint(h) != "[{b /s/b}]" {
		t.Fatalf("replace: %v", h)
	}
	if _, err := s.Load(nil, "merge"); err == nil {
		t.Error("unknown mode accepted")
	}
	s.Load([]Active{a, c}, LoadAdd)
	if h := s.Unload([]Handle{{"b", "/s/b"}, {"zz", "/"}}, false); fmt.Sprint(h) != "[{a /s/a} {c /s/c}]" || s.IsActive(b.Handle) {
		t.Fatalf("unload some: %v", h)
	}
	if h := s.Unload(nil, true); len(h) != 0 || h == nil || s.TokenTotal() != "0 tokens" {
		t.Fatalf("unload all: %v", h)
	}
}

// TestWhatTheAgentSees composes the catalog block (XML-escaped) and the
// active skills' rendered text.
func TestWhatTheAgentSees(t *testing.T) {
	r, err := Index(filepath.Join(fixtures, "report-writer"))
	if err != nil {
		t.Fatal(err)
	}
	act, res := ActivateRecord(r, map[string]string{"topic": "Q3"})
	if res.AppliedArguments["topic"] != "Q3" || act.Insert != InsertUserMessage {
		t.Fatalf("activate: %+v", act)
	}
	var s Session
	s.Load([]Active{act}, "")
	cat := []CatalogEntry{CatalogOf(r), {Name: "x<y", Description: `a "b" & c`, Location: "/m/x.md"}}
	out := WhatTheAgentSees(cat, &s)
	for _, want := range []string{
		"```xml\n<available_skills>\n  <skill>\n    <name>report-writer</name>",
		"<location>" + filepath.Join(r.Key.Location, FileName) + "</location>",
		"<name>x&lt;y</name>", "<description>a &quot;b&quot; &amp; c</description>",
		"## Active skills (1, ≈ ", "### report-writer", "*inserted as user-message", "# Report on Q3",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if got := fence("a ```` b", "md"); !strings.HasPrefix(got, "`````md\n") {
		t.Errorf("fence %q", got)
	}
}
