package formview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"modbay/ui/internal/uitest"
)

// formCase is one schema under testdata/forms filled by keyboard: load
// (when set) goes in through JSON mode first, then keys are pressed ("=x"
// types x), and the form must send want with problems as listed. Its
// frame is the test's golden, and the form survives form → JSON mode →
// form with the same value and the same frame.
type formCase struct {
	name     string
	load     string
	keys     []string
	want     string
	problems map[string]string // pointer → substring of its problem
	shows    []string          // substrings of the frame
	hides    []string          // substrings the frame must not have
}

var formCases = []formCase{
	{name: "readonly-default", keys: []string{"tab", "=Ada"}, want: `{"id":"rec_123","name":"Ada"}`,
		shows: []string{"read-only, sent", "(default, sent)"}},
	{name: "readonly-no-default", keys: []string{"tab", "=Ada"}, want: `{"name":"Ada"}`,
		problems: map[string]string{"/id": "the form cannot fill it"}, shows: []string{"read-only, no default · ctrl+e: JSON mode", "the form cannot fill it"}},
	{name: "readonly-no-default", load: `{"id":"rec_9","name":"Ada"}`, want: `{"id":"rec_9","name":"Ada"}`,
		shows: []string{"rec_9", "read-only, sent"}},
	{name: "oneof-shared-keys", load: `{"choice":{"lorem":"second"}}`, want: `{"choice":{"lorem":"second"}}`,
		shows: []string{"second", "read-only, sent"}, hides: []string{"entry", "alike"}},
	{name: "oneof-ambiguous", load: `{"target":{"name":"x"}}`, want: `{"target":{"name":"x"}}`,
		shows: []string{"the value fits by name and by label alike: pick one"}},
	{name: "oneof-discriminated", load: `{"shape":{"kind":"square","side":2}}`, want: `{"shape":{"kind":"square","side":2}}`,
		shows: []string{"square"}, hides: []string{"alike", "fits alternatives", "entry", "entries", "also holds"}},
	{name: "dependencies-oneof", keys: []string{"right", "right", "tab", "=3"}, want: `{"pets":"Yes: One","age":3}`,
		shows: []string{"How old is your pet?"}, hides: []string{"rid of any"}},
	{name: "dependencies-oneof", load: `{"pets":"Yes: More than one","rehome":true}`, want: `{"pets":"Yes: More than one","rehome":true}`,
		shows: []string{"Do you want to get rid of any?"}, hides: []string{"How old", "entry"}},
	{name: "dependent-schemas-anyof", keys: []string{"right", "tab", "=a.txt"}, want: `{"mode":"file","path":"a.txt"}`,
		hides: []string{"url"}},
	{name: "pattern-properties", keys: []string{"ctrl+a", "=n_count", "tab", "=5", "ctrl+a", "=s_label", "tab", "=hi"}, want: `{"n_count":5,"s_label":"hi"}`,
		hides: []string{"JSON"}},
	{name: "integer-notes", keys: []string{"=12", "tab", "=5", "tab", "=2024-01-02T03:04:05Z"}, want: `{"thread":12,"limit":5,"since":"2024-01-02T03:04:05Z"}`,
		shows: []string{"modbay: integers are exact to ±2^53", "≥ 1 · ≤ 100", "modbay checks date-time (YYYY-MM-DDThh:mm:ssZ)"}, hides: []string{"9007199254740991"}},
	{name: "edit-file", keys: []string{"=notes.md", "tab", "ctrl+a", "tab", "=a", "tab", "=b"}, want: `{"path":"notes.md","edits":[{"oldText":"a","newText":"b"}]}`,
		shows: []string{"path *", "edits *", "dryRun"}},
}

// TestFormCases runs formCases.
func TestFormCases(t *testing.T) {
	for _, c := range formCases {
		name := c.name
		if c.load != "" {
			name += "-loaded"
		}
		t.Run(name, func(t *testing.T) {
			schema, err := os.ReadFile(filepath.Join("testdata", "forms", c.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			m := newSchemaForm(t, string(schema), 100, 24)
			if c.load != "" {
				keys(m, "ctrl+e")
				m.jsonArea.SetValue(c.load)
				keys(m, "ctrl+e")
				if m.JSONMode() {
					t.Fatalf("JSON mode kept: %s", m.Note())
				}
			}
			for _, k := range c.keys {
				if text, ok := strings.CutPrefix(k, "="); ok {
					feed(m, uitest.Type(text)...)
					continue
				}
				keys(m, k)
			}
			checkCase(t, m, c)
			roundTrip(t, m, c)
			frame := m.View()
			for _, s := range c.shows {
				if !strings.Contains(frame, s) {
					t.Errorf("the frame lacks %q:\n%s", s, frame)
				}
			}
			for _, s := range c.hides {
				if strings.Contains(frame, s) {
					t.Errorf("the frame has %q:\n%s", s, frame)
				}
			}
			golden.RequireEqual(t, []byte(frame))

			roundTrip(t, m, c)
			if back := m.View(); back != frame {
				t.Errorf("form → JSON mode → form changed the frame:\n%s\nwas\n%s", back, frame)
			}
		})
	}
}

// roundTrip goes form → JSON mode → form: JSON mode holds the value the
// form sends, and the form sends it again.
func roundTrip(t *testing.T, m *Model, c formCase) {
	t.Helper()
	keys(m, "ctrl+e")
	var got, want any
	if json.Unmarshal([]byte(m.jsonArea.Value()), &got) != nil || json.Unmarshal([]byte(c.want), &want) != nil || !jsonSame(got, want) {
		t.Errorf("JSON mode holds %s, want %s", m.jsonArea.Value(), c.want)
	}
	keys(m, "ctrl+e")
	if m.JSONMode() {
		t.Fatalf("JSON mode kept: %s", m.Note())
	}
	checkCase(t, m, c)
}

func checkCase(t *testing.T, m *Model, c formCase) {
	t.Helper()
	if got := string(m.Value()); got != c.want {
		t.Errorf("sends %s, want %s", got, c.want)
	}
	p := m.Problems()
	if p.Count() != len(c.problems) {
		t.Errorf("%d problems %v, want %v", p.Count(), p.Fields, c.problems)
	}
	for ptr, msg := range c.problems {
		if !strings.Contains(strings.Join(p.Fields[ptr], "; "), msg) {
			t.Errorf("%s: problems %q, want %q", ptr, p.Fields[ptr], msg)
		}
	}
}

func jsonSame(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
