package skills

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"modbay/contain"
)

// skillCopy copies the report-writer fixture to a temporary folder, so a
// script that could write into it would not touch the repository.
func skillCopy(t *testing.T) string {
	t.Helper()
	src := filepath.Join(fixtures, "report-writer")
	dst := filepath.Join(t.TempDir(), "report-writer")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestRunScriptOffByDefault(t *testing.T) {
	_, err := RunScript(context.Background(), skillCopy(t), "scripts/count.sh", nil, ScriptOptions{})
	if !errors.Is(err, ErrScriptsDisabled) {
		t.Fatalf("err %v, want ErrScriptsDisabled", err)
	}
}

// TestRunScriptContained runs the fixture's script contained: exit code,
// both streams, cwd in the scratch directory, the skill folder read-only.
func TestRunScriptContained(t *testing.T) {
	dir := skillCopy(t)
	res, err := RunScript(context.Background(), dir, "scripts/count.sh", []string{"a", "b"}, ScriptOptions{Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == ExitCannotStart && strings.Contains(res.Stderr, "start") {
		t.Skipf("containment cannot start here: %s", res.Stderr)
	}
	t.Logf("enforcement %+v\nstdout %q", res.Enforcement, res.Stdout)
	if res.ExitCode != 3 || !strings.Contains(res.Stdout, "words: 2") || !strings.Contains(res.Stdout, "cwd-is-scratch: yes") || res.Stderr != "to stderr\n" {
		t.Errorf("result %+v", res)
	}
	if res.Enforcement.Contained && res.Enforcement.Filesystem != "" && !strings.HasPrefix(res.Enforcement.Filesystem, "not enforced") {
		if !strings.Contains(res.Stdout, "skill-dir: read-only") {
			t.Errorf("the skill folder was writable under %s:\n%s", res.Enforcement.Filesystem, res.Stdout)
		}
	}
	if res.Interpreter == "" || !filepath.IsAbs(res.Interpreter) {
		t.Errorf("interpreter %q", res.Interpreter)
	}
}

// TestRunScriptLimits: a deadline gives 124 and kills the tree; output
// keeps its tail; no interpreter or a missing file gives 127; a location
// out of the folder is refused before anything runs.
func TestRunScriptLimits(t *testing.T) {
	dir := skillCopy(t)
	on := ScriptOptions{Enabled: true, Mode: contain.ModeOff}
	start := time.Now()
	res, err := RunScript(context.Background(), dir, "scripts/sleep.sh", nil, ScriptOptions{Enabled: true, Mode: contain.ModeOff, Timeout: 300 * time.Millisecond})
	if err != nil || res.ExitCode != ExitTimeout || !res.TimedOut || res.Stdout != "started\n" {
		t.Errorf("timeout: %v %+v", err, res)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the sleeping child kept the run alive %v", d)
	}
	res, err = RunScript(context.Background(), dir, "scripts/spew.sh", nil, on)
	if err != nil || !res.StdoutTruncated || len(res.Stdout) != MaxScriptOutput || !strings.HasSuffix(res.Stdout, "last line\n") {
		t.Errorf("spew: %v truncated %v len %d", err, res.StdoutTruncated, len(res.Stdout))
	}
	for _, loc := range []string{"scripts/notes.txt", "scripts/missing.sh", "references"} {
		res, err = RunScript(context.Background(), dir, loc, nil, on)
		if err != nil || res.ExitCode != ExitCannotStart || res.Stderr == "" {
			t.Errorf("%s: %v %+v", loc, err, res)
		}
	}
	res, err = RunScript(context.Background(), dir, "scripts/count.sh", nil, ScriptOptions{Enabled: true, Mode: contain.ModeOff, LookPath: func(string) (string, error) { return "", errors.New("not found") }})
	if err != nil || res.ExitCode != ExitCannotStart || !strings.Contains(res.Stderr, "interpreter sh") {
		t.Errorf("no interpreter: %v %+v", err, res)
	}
	if _, err := RunScript(context.Background(), dir, "../x.sh", nil, on); !errors.Is(err, ErrOutsideSkill) {
		t.Errorf("escape: %v", err)
	}
}

// TestInterpreterShim: an interpreter that is a #! script is reported.
func TestInterpreterShim(t *testing.T) {
	shim := filepath.Join(t.TempDir(), "python3")
	os.WriteFile(shim, []byte("#!/bin/sh\nexec pyenv exec python3 \"$@\"\n"), 0o755)
	exe, note, err := resolveInterpreter("python3", func(string) (string, error) { return shim, nil })
	if err != nil || exe != shim || !strings.Contains(note, "is a shim") {
		t.Errorf("%q %q %v", exe, note, err)
	}
	if _, note, _ := resolveInterpreter("sh", nil); note != "" {
		t.Errorf("sh reported as a shim: %s", note)
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{limit: 5}
	b.Write([]byte("abc"))
	b.Write([]byte("defg"))
	if s, cut := b.result(); s != "cdefg" || !cut {
		t.Errorf("%q %v", s, cut)
	}
	b = &tailBuffer{limit: 3}
	b.Write([]byte("abcdef"))
	if s, cut := b.result(); s != "def" || !cut {
		t.Errorf("%q %v", s, cut)
	}
}
