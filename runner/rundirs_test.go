package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"modbay/contain"
)

// freeRunDirs is the pool's free list, after its background work.
func freeRunDirs() []string {
	runDirs.wait()
	runDirs.mu.Lock()
	defer runDirs.mu.Unlock()
	return slices.Clone(runDirs.free)
}

// TestRunDirReuse: a finished run's directory is emptied and used again
// only when it is left as made; whatever a module changed beyond its
// files (a symlink for work, an ACL, an extra entry, a run outside a PID
// namespace) and the directory is removed instead.
func TestRunDirReuse(t *testing.T) {
	FlushRunDirs()
	defer FlushRunDirs()
	outside := t.TempDir()
	cases := []struct {
		name  string
		leave func(t *testing.T, dir string)
		reuse bool // the run had a PID namespace
		kept  bool
	}{
		{"files left, modes changed", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "request.json"), []byte("{}"), 0o600))
			must(t, os.MkdirAll(filepath.Join(dir, "work", "a", "b"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "work", "a", "b", "f"), []byte("x"), 0o644))
			must(t, os.WriteFile(filepath.Join(dir, "tmp", "t"), []byte("x"), 0o644))
			must(t, os.Chmod(filepath.Join(dir, "work", "a"), 0o500)) // not writable: still emptied
			must(t, os.Chmod(filepath.Join(dir, "work"), 0o777))
			must(t, os.Chmod(dir, 0o755))
		}, true, true},
		{"request file hard-linked out", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "request.json"), []byte("{}"), 0o600))
			must(t, os.Link(filepath.Join(dir, "request.json"), filepath.Join(outside, "linked")))
		}, true, true},
		{"request file a symlink", func(t *testing.T, dir string) {
			must(t, os.Symlink(filepath.Join(outside, "keep"), filepath.Join(dir, "request.json")))
		}, true, true},
		{"no PID namespace", func(t *testing.T, dir string) {}, false, false},
		{"work a symlink", func(t *testing.T, dir string) {
			must(t, os.Remove(filepath.Join(dir, "work")))
			must(t, os.Symlink(outside, filepath.Join(dir, "work")))
		}, true, false},
		{"an extra entry", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "extra"), nil, 0o600))
		}, true, false},
		{"an attribute on tmp", func(t *testing.T, dir string) {
			if err := unix.Setxattr(filepath.Join(dir, "tmp"), "user.mark", []byte("1"), 0); err != nil {
				t.Skipf("no user xattrs here: %v", err)
			}
		}, true, false},
	}
	must(t, os.WriteFile(filepath.Join(outside, "keep"), []byte("x"), 0o600))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, err := runDirs.take()
			if err != nil {
				t.Fatal(err)
			}
			FlushRunDirs() // only dir is in play
			c.leave(t, dir)
			runDirs.release(dir, c.reuse)
			free := freeRunDirs()
			if got := slices.Contains(free, dir); got != c.kept {
				t.Fatalf("kept %v, want %v (free %v)", got, c.kept, free)
			}
			if !c.kept {
				if _, err := os.Lstat(dir); !os.IsNotExist(err) {
					t.Errorf("%s not removed: %v", dir, err)
				}
				return
			}
			for _, d := range []string{dir, filepath.Join(dir, "tmp"), filepath.Join(dir, "work")} {
				fi, err := os.Lstat(d)
				if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
					t.Errorf("%s: %v %v", d, fi.Mode(), err)
				}
				names, _ := dirNames(d)
				if d != dir && len(names) > 0 {
					t.Errorf("%s holds %v", d, names)
				}
			}
			// Only a plain request file of ours with one link is kept,
			// emptied; any other is removed.
			fi, err := os.Lstat(filepath.Join(dir, "request.json"))
			switch c.name {
			case "files left, modes changed":
				if err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 {
					t.Errorf("request file not kept empty: %v %v", fi, err)
				}
			default:
				if !os.IsNotExist(err) {
					t.Errorf("request file kept: %v %v", fi, err)
				}
			}
			// The next run takes it.
			if again, err := runDirs.take(); err != nil || again != dir {
				t.Errorf("next take %s, %v; want %s", again, err, dir)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(outside, "keep")); err != nil || string(b) != "x" {
		t.Errorf("a symlink's target was touched: %q %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "linked")); err != nil || string(b) != "{}" {
		t.Errorf("a hard link's other name was touched: %q %v", b, err)
	}
	FlushRunDirs()
	if len(freeRunDirs()) != 0 {
		t.Error("FlushRunDirs kept directories")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestReusedRunDirIsEmpty: through the sandbox, a run that leaves files,
// a changed mode and a deep tree behind hands the next run an empty cwd
// and TMPDIR in the same directory, and its own request file.
func TestReusedRunDirIsEmpty(t *testing.T) {
	f := containedFixture(t)
	f.addLinkedModule("leaver", "good")
	m := f.load("leaver")
	FlushRunDirs()
	defer FlushRunDirs()
	var dirs []string
	for i := range 2 {
		res := f.run(m, "t.hostile", `{"mode":"leave"}`, nil)
		if !res.OK() {
			t.Fatalf("run %d: %+v", i, res.Host)
		}
		if res.Enforcement.Processes != contain.ProcessesPIDNamespace {
			t.Skipf("no PID namespace here (%q): run directories are not reused", res.Enforcement.Processes)
		}
		var found struct {
			Cwd, Tmp, Run []string
			RunDir        string `json:"run_dir"`
			ThisRun       bool   `json:"request_is_this_run"`
		}
		if err := json.Unmarshal(res.Envelope.Result, &found); err != nil {
			t.Fatal(err)
		}
		if len(found.Cwd) != 0 || len(found.Tmp) != 0 || !found.ThisRun {
			t.Errorf("run %d found cwd %v, TMPDIR %v, its request %v", i, found.Cwd, found.Tmp, found.ThisRun)
		}
		slices.Sort(found.Run)
		if strings.Join(found.Run, " ") != "request.json tmp work" {
			t.Errorf("run %d found its run directory holding %v", i, found.Run)
		}
		dirs = append(dirs, found.RunDir)
		// Keep only this run's directory: the next run takes it.
		free := freeRunDirs()
		if !slices.Contains(free, found.RunDir) {
			t.Fatalf("run %d: its directory %s was not kept (%v)", i, found.RunDir, free)
		}
		for _, d := range free {
			if d != found.RunDir {
				RemoveTree(d)
			}
		}
		runDirs.mu.Lock()
		runDirs.free = []string{found.RunDir}
		runDirs.mu.Unlock()
	}
	if dirs[0] != dirs[1] {
		t.Errorf("the second run did not reuse the first's directory: %v", dirs)
	}
}
