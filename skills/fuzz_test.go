package skills

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"modbay/internal/testcorpus"
)

// FuzzParse feeds SKILL.md parsing arbitrary bytes (seeded with the
// project's fixtures and, when present, the corpus): it never panics,
// fails only with ErrUnusable, and what it returns keeps its promises.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join(fixtures, "*", FileName))
	if dir, ok := testcorpus.Lookup(f, "skills"); ok {
		more, _ := filepath.Glob(filepath.Join(dir, "*", FileName))
		seeds = append(seeds, more...)
	}
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("---\nname: a\ndescription: [x, {y: z}]\narguments: [{name: 1}, b, [c]]\ntags: {a: b}\n---\n"))
	f.Add([]byte("---\n!!map &a {name: *a}\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data, "dir")
		if err != nil {
			if !errors.Is(err, ErrUnusable) {
				t.Fatalf("error without ErrUnusable: %v", err)
			}
			return
		}
		if p.Description == "" || len(p.Arguments) > MaxArguments || len(p.Tags) > MaxTags || !utf8.ValidString(p.Body) {
			t.Fatalf("broken result: %+v", p)
		}
		if p.Insert != InsertInstructions && p.Insert != InsertUserMessage {
			t.Fatalf("insert %q", p.Insert)
		}
		_ = Render(p.Body, p.Arguments, map[string]string{"a": "$a"})
	})
}
