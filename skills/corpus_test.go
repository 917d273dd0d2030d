package skills

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"modbay/internal/testcorpus"
)

// TestCorpusSkills indexes every real SKILL.md of the shared corpus
// (skills/) and pins the warnings the rules give each, and renders each
// body with its declared arguments (the unknown placeholders pinned too).
// Without the corpus it skips (testcorpus).
func TestCorpusSkills(t *testing.T) {
	dir := testcorpus.Dir(t, "skills")
	want := map[string]struct {
		name     string
		warnings []string
		unknown  []string
	}{
		"address-sanitizer":     {name: "address-sanitizer", warnings: []string{"type: unknown key: kept as raw frontmatter, not interpreted"}},
		"brainstorming":         {name: "brainstorming"},
		"claude-api":            {name: "claude-api", warnings: []string{"description: 1068 characters, more than 1024"}},
		"codeql":                {name: "codeql", unknown: []string{"$USER_SPECIFIED_DIR", "$OUTPUT_DIR", "$db", "$DB_LIST", "$CODEQL_LANG", "$CREATED", "$DB_NAME"}},
		"composition-patterns":  {name: "vercel-composition-patterns", warnings: []string{`name: "vercel-composition-patterns" differs from its folder's name "composition-patterns"`}},
		"skill-creator":         {name: "skill-creator", unknown: []string{"$VIEWER_PID"}},
		"skill-improver":        {name: "skill-improver", warnings: []string{"argument-hint: unknown key: kept as raw frontmatter, not interpreted"}, unknown: []string{"$ARGUMENTS"}},
		"web-design-guidelines": {name: "web-design-guidelines"},
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		seen++
		t.Run(e.Name(), func(t *testing.T) {
			w, ok := want[e.Name()]
			if !ok {
				t.Fatalf("corpus skill %s has no pinned expectation: add one", e.Name())
			}
			r, err := Index(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if r.Name != w.name || !reflect.DeepEqual(r.Warnings, w.warnings) {
				t.Errorf("name %q warnings %q, want %q %q", r.Name, r.Warnings, w.name, w.warnings)
			}
			if r.Description == "" || r.Digest == "" || !r.Resources.HasResources {
				t.Errorf("record %+v", r)
			}
			res := Render(r.Body, r.Arguments, nil)
			if res.Text == "" || !reflect.DeepEqual(res.UnknownPlaceholders, w.unknown) {
				t.Errorf("render: unknown %q, want %q", res.UnknownPlaceholders, w.unknown)
			}
		})
	}
	if seen != len(want) {
		t.Errorf("%d corpus skills, %d pinned", seen, len(want))
	}
}
