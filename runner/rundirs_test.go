package runner

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// freeRunDirs is the pool's free list, after its background work.
func freeRunDirs() []string {
	runDirs.wg.Wait()
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
				if want := map[bool]int{true: 2, false: 0}[d == dir]; len(names) != want {
					t.Errorf("%s holds %v", d, names)
				}
			}
			// The next run takes it.
			if again, err := runDirs.take(); err != nil || again != dir {
				t.Errorf("next take %s, %v; want %s", again, err, dir)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Errorf("a symlink's target was touched: %v", err)
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
