package formview

import (
	"strings"
	"testing"

	"modbay/ui/internal/uitest"
)

// JSON mode says what is wrong with invalid JSON in plain
// words, with where; ctrl+s refuses, pointing at it without repeating it.
func TestJSONModeSaysStringsNeedQuotes(t *testing.T) {
	m := newSchemaForm(t, `{"type":"object","properties":{"a":{"type":"string"}}}`, 100, 20)
	keys(m, "ctrl+e")
	m.jsonArea.SetValue("{\n  \"a\": hello\n}")
	m.checkJSON()
	const want = `not valid JSON — strings need quotes: write "hello", not hello (line 2, column 8)`
	if !strings.Contains(m.View(), want) {
		t.Fatalf("JSON mode does not say %q:\n%s", want, m.View())
	}
	if a := keys(m, "ctrl+s"); a != nil || !strings.Contains(m.Note(), "Not submitted: the JSON does not parse") {
		t.Fatalf("ctrl+s: %+v, note %q", a, m.Note())
	}
	// Said once: the ✗ line, not again in the note.
	if n := strings.Count(m.View(), "strings need quotes"); n != 1 {
		t.Fatalf("after ctrl+s the problem is said %d times:\n%s", n, m.View())
	}
	keys(m, "ctrl+e")
	if !m.JSONMode() || !strings.Contains(m.Note(), "Still in JSON mode") {
		t.Fatalf("leaving JSON mode: %v, note %q", m.JSONMode(), m.Note())
	}
	// Still said once after ctrl+e (a tester saw it twice).
	if n := strings.Count(m.View(), "strings need quotes"); n != 1 {
		t.Fatalf("after ctrl+e the problem is said %d times:\n%s", n, m.View())
	}
}

// The whole pattern of "must match the pattern …" can be read: under the
// focused field, and in JSON mode's list.
func TestLongPatternIsWholeUnderTheFocusedField(t *testing.T) {
	const pattern = `^[a-z]{3}-[0-9]{4}-(alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa|lambda|mu|nu|xi|omicron|pi|rho|sigma|tau|upsilon|phi|chi|psi|omega)$`
	m := newSchemaForm(t, `{"type":"object","properties":{"p":{"type":"string","pattern":"`+strings.ReplaceAll(pattern, `\`, `\\`)+`"},"q":{"type":"string"}}}`, 80, 30)
	feed(m, uitest.Type("nope")...)
	keys(m, "tab", "shift+tab")
	flat := strings.Join(strings.Fields(m.View()), "")
	if !strings.Contains(flat, "mustmatchthepattern"+pattern) {
		t.Fatalf("the whole pattern is not under the focused field:\n%s", m.View())
	}
	keys(m, "tab")
	if strings.Contains(strings.Join(strings.Fields(m.View()), ""), pattern) {
		t.Fatalf("an unfocused field's problem should stay on one line:\n%s", m.View())
	}
	keys(m, "ctrl+e")
	flat = strings.Join(strings.Fields(m.View()), "")
	if !strings.Contains(flat, "/p:mustmatchthepattern"+pattern) {
		t.Fatalf("the whole pattern is not in JSON mode's list:\n%s", m.View())
	}
}
