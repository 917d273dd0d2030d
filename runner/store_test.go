package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCollectStoreSparesOnlyRunsStaging: garbage collection frees at
// once a staged file no record names, spares one a live process's
// journal names, and removes the journal
// of a process gone, freeing what it named. A run's journal lasts
// until its record is made (ReleaseStaged).
func TestCollectStoreSparesOnlyRunsStaging(t *testing.T) {
	store := t.TempDir()
	stage := func(c byte) string {
		name := strings.Repeat(string(c), 64)
		p := filepath.Join(store, "sha256", name[:2], name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o444); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		os.Chtimes(p, old, old)
		return p
	}
	unnamed, live, dead := stage('a'), stage('b'), stage('c')
	now := time.Now()
	b := &stageBudget{store: store}
	if err := b.note(live); err != nil {
		t.Fatal(err)
	}
	defer b.close(nil)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	deadJournal := filepath.Join(store, pendingDir, strconv.Itoa(gone.Process.Pid)+"-1")
	if err := os.WriteFile(deadJournal, []byte(dead+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := CollectStore(store, map[string]bool{}, now)
	if err != nil {
		t.Fatal(err)
	}
	for p, kept := range map[string]bool{unnamed: false, live: true, dead: false} {
		if _, err := os.Stat(p); (err == nil) != kept {
			t.Errorf("%s: kept %v, want %v", filepath.Base(p)[:1], err == nil, kept)
		}
	}
	if c.Files != 2 {
		t.Errorf("collected %d files, want 2", c.Files)
	}
	if _, err := os.Stat(deadJournal); err == nil {
		t.Error("the journal of a process gone was kept")
	}
	res := &Result{}
	b.close(res)
	if entries, _ := os.ReadDir(filepath.Join(store, pendingDir)); len(entries) != 1 {
		t.Errorf("the journal went before the run's record named its files: %v", entries)
	}
	res.ReleaseStaged()
	if entries, _ := os.ReadDir(filepath.Join(store, pendingDir)); len(entries) != 0 {
		t.Errorf("a closed journal is left: %v", entries)
	}
}

// TestGroupRefused: refusals in a row that broke one rule are one group,
// named by their first and last ids; a lone one keeps its reason whole.
func TestGroupRefused(t *testing.T) {
	var refused []RefusedArtifact
	for _, id := range []string{"a1", "a2", "a3"} {
		refused = append(refused, RefusedArtifact{ID: id, Reason: `artifact "` + id + `": staging bound: the run stages more than MaxRunArtifacts (1000) artifacts`})
	}
	refused = append(refused, RefusedArtifact{ID: "b", Reason: `artifact "b": digest mismatch`})
	g := GroupRefused(refused)
	quote := func(s string) string { return `"` + s + `"` }
	if len(g) != 2 || g[0].Names(quote) != `"a1" … "a3" (3 artifacts)` || g[0].Reason != "staging bound: the run stages more than MaxRunArtifacts (1000) artifacts" ||
		g[1].Names(quote) != `"b"` || g[1].Reason != `artifact "b": digest mismatch` {
		t.Errorf("GroupRefused = %+v", g)
	}
}
