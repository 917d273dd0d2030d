package testcorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTB records what the helper asks of a test instead of stopping it.
type fakeTB struct {
	skipped, fatal []string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Skip(args ...any)  { f.skipped = append(f.skipped, fmt.Sprint(args...)) }
func (f *fakeTB) Fatal(args ...any) { f.fatal = append(f.fatal, fmt.Sprint(args...)) }

// env sets the variables the helper reads; "" unsets by setting empty,
// which the helper reads as unset.
func env(t *testing.T, corpus, ci, require string) {
	t.Setenv(EnvDir, corpus)
	t.Setenv("CI", ci)
	t.Setenv(EnvRequire, require)
}

func TestDirPresent(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "schemas"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, ci := range []string{"", "true"} {
		env(t, dir, ci, "")
		f := &fakeTB{}
		if got := Dir(f, "schemas"); got != filepath.Join(dir, "schemas") {
			t.Errorf("CI=%q: Dir = %q", ci, got)
		}
		if len(f.skipped)+len(f.fatal) > 0 {
			t.Errorf("CI=%q: present corpus skipped %q or failed %q", ci, f.skipped, f.fatal)
		}
	}
}

func TestDirAbsentSkipsWithOneLine(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	env(t, missing, "", "")
	f := &fakeTB{}
	if got := Dir(f, "schemas"); got != "" {
		t.Errorf("Dir = %q for an absent corpus", got)
	}
	if len(f.fatal) > 0 || len(f.skipped) != 1 {
		t.Fatalf("skipped %q, failed %q; want one skip", f.skipped, f.fatal)
	}
	line := f.skipped[0]
	for _, want := range []string{"corpus absent", missing, "MODBAY_CORPUS=/path/to/corpus"} {
		if !strings.Contains(line, want) {
			t.Errorf("skip line %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "\n") {
		t.Errorf("skip line is not one line: %q", line)
	}
	// Lookup neither skips nor fails: the caller keeps its own inputs.
	f = &fakeTB{}
	if p, ok := Lookup(f, "schemas"); ok || p != "" || len(f.skipped)+len(f.fatal) > 0 {
		t.Errorf("Lookup = %q %v, skipped %q, failed %q", p, ok, f.skipped, f.fatal)
	}
}

func TestDirAbsentFailsWhenRequired(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	for _, tt := range []struct{ ci, require string }{
		{"true", ""}, {"1", ""}, {"", "1"}, {"false", "true"},
	} {
		t.Run("CI="+tt.ci+",require="+tt.require, func(t *testing.T) {
			env(t, missing, tt.ci, tt.require)
			for name, call := range map[string]func(TB){
				"Dir":    func(tb TB) { Dir(tb, "schemas") },
				"Lookup": func(tb TB) { Lookup(tb, "schemas") },
			} {
				f := &fakeTB{}
				call(f)
				if len(f.skipped) > 0 || len(f.fatal) != 1 {
					t.Fatalf("%s: skipped %q, failed %q; want one failure", name, f.skipped, f.fatal)
				}
				if !strings.Contains(f.fatal[0], "corpus absent") || !strings.Contains(f.fatal[0], EnvDir) {
					t.Errorf("%s: failure %q does not say the corpus is absent and how to point at it", name, f.fatal[0])
				}
			}
		})
	}
}

func TestDirNotRequiredByFalseValues(t *testing.T) {
	env(t, filepath.Join(t.TempDir(), "nope"), "false", "0")
	f := &fakeTB{}
	Dir(f)
	if len(f.fatal) > 0 || len(f.skipped) != 1 {
		t.Fatalf("CI=false: skipped %q, failed %q; want a skip", f.skipped, f.fatal)
	}
}

func TestDirPresentCorpusWithoutSubFails(t *testing.T) {
	env(t, t.TempDir(), "", "")
	f := &fakeTB{}
	Dir(f, "tables")
	if len(f.skipped) > 0 || len(f.fatal) != 1 || !strings.Contains(f.fatal[0], "has no tables") {
		t.Fatalf("skipped %q, failed %q; a broken corpus must fail", f.skipped, f.fatal)
	}
}

// TestRootBesideRepository: without MODBAY_CORPUS the corpus is
// ../shared/corpus beside the directory holding go.mod, found from any
// directory below it.
func TestRootBesideRepository(t *testing.T) {
	env(t, "", "", "")
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	deep := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(deep)
	got, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(top, "shared", "corpus"); got != want {
		t.Fatalf("Root = %q, want %q", got, want)
	}
	f := &fakeTB{}
	Dir(f, "schemas")
	if len(f.skipped) != 1 || !strings.Contains(f.skipped[0], filepath.Join(top, "shared", "corpus")) {
		t.Fatalf("skipped %q, failed %q", f.skipped, f.fatal)
	}
	if err := os.MkdirAll(filepath.Join(top, "shared", "corpus", "schemas"), 0o755); err != nil {
		t.Fatal(err)
	}
	f = &fakeTB{}
	if p := Dir(f, "schemas"); p != filepath.Join(top, "shared", "corpus", "schemas") || len(f.skipped)+len(f.fatal) > 0 {
		t.Fatalf("Dir = %q, skipped %q, failed %q", p, f.skipped, f.fatal)
	}
}
