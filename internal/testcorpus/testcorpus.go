package testcorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// EnvDir names the environment variable that points at the corpus
// directory (the one holding modules/, schemas/, markdown/, tables/).
const EnvDir = "MODBAY_CORPUS"

// EnvRequire names the environment variable that, set to 1 (or any true
// value strconv.ParseBool accepts), makes a missing corpus a failure. CI=true
// does the same.
const EnvRequire = "MODBAY_REQUIRE_CORPUS"

// TB is the part of testing.TB the helper uses; *testing.T, *testing.B and
// *testing.F satisfy it.
type TB interface {
	Helper()
	Skip(args ...any)
	Fatal(args ...any)
}

// Root returns where the corpus should be: $MODBAY_CORPUS when set, else
// <repository root>/../shared/corpus, where the repository root is the
// nearest directory at or above the working directory holding go.mod. It
// does not check that the directory exists; the error says why no path
// could be formed.
func Root() (string, error) {
	if dir := os.Getenv(EnvDir); dir != "" {
		return filepath.Abs(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !fi.IsDir() {
			return filepath.Join(filepath.Dir(dir), "shared", "corpus"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod at or above %s", wd)
		}
		dir = parent
	}
}

// Required reports whether a missing corpus is a failure: CI or
// MODBAY_REQUIRE_CORPUS holds a true value.
func Required() bool {
	for _, k := range []string{"CI", EnvRequire} {
		if v, err := strconv.ParseBool(os.Getenv(k)); err == nil && v {
			return true
		}
	}
	return false
}

// Dir returns the absolute path of sub (slash-free path elements, joined)
// inside the corpus. When the corpus is absent it skips tb with one line
// naming the path looked at and MODBAY_CORPUS, or, when Required, fails tb
// with that line. A corpus that is present but lacks sub always fails tb:
// the corpus is then broken, not absent.
func Dir(tb TB, sub ...string) string {
	tb.Helper()
	p, found := lookup(tb, sub)
	if found == absent {
		tb.Skip(absentLine())
	}
	return p
}

// Lookup is Dir for optional uses, such as seeding a fuzz target: it
// returns ("", false) instead of skipping when the corpus is absent, so the
// caller keeps its own inputs. It fails tb as Dir does when the corpus is
// required, or present but without sub.
func Lookup(tb TB, sub ...string) (string, bool) {
	tb.Helper()
	p, found := lookup(tb, sub)
	return p, found == present
}

// outcome is what lookup found.
type outcome int

const (
	present outcome = iota // the corpus and sub exist
	absent                 // no corpus, and none is required
	failed                 // tb.Fatal was called
)

func lookup(tb TB, sub []string) (string, outcome) {
	tb.Helper()
	root, err := Root()
	if err != nil || !isDir(root) {
		if Required() {
			tb.Fatal(absentLine() + " (required here: CI or " + EnvRequire + " is set)")
			return "", failed
		}
		return "", absent
	}
	p := filepath.Join(append([]string{root}, sub...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatal(fmt.Sprintf("corpus at %s has no %s: %v", root, filepath.Join(sub...), err))
		return "", failed
	}
	return p, present
}

// absentLine is the one line a skipped or failed corpus test prints.
func absentLine() string {
	root, err := Root()
	if err != nil {
		return fmt.Sprintf("corpus absent (%v); set %s=/path/to/corpus to run the corpus tests", err, EnvDir)
	}
	return fmt.Sprintf("corpus absent at %s; set %s=/path/to/corpus to run the corpus tests", root, EnvDir)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
