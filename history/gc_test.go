package history

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"modbay/config"
)

// TestPruningCollectsArtifacts: once pruning drops the runs that named a
// staged artifact, the store no longer holds it; what a kept run names
// stays, and what nothing names goes however young (a run still staging
// keeps its own in its journal: runner.CollectStore).
func TestPruningCollectsArtifacts(t *testing.T) {
	home := t.TempDir()
	cfg, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.History.MaxRuns = 2
	s, err := OpenConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	stage := func(i int, age time.Duration) string {
		name := strings.Repeat(fmt.Sprintf("%x", i%16), 64)
		p := filepath.Join(cfg.ArtifactsDir(), "sha256", name[:2], name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o444); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-age)
		os.Chtimes(p, old, old)
		return p
	}
	base := time.Now().Add(-time.Hour)
	var staged []string
	for i := range 5 {
		p := stage(i, time.Hour)
		staged = append(staged, p)
		rec := sampleRecord(fmt.Sprintf("req_%d", i), base.Add(time.Duration(i)*time.Minute))
		rec.Artifacts = []Artifact{{Staged: p}}
		if err := s.Put(rec); err != nil {
			t.Fatal(err)
		}
	}
	fresh := stage(9, 0)
	rec := sampleRecord("req_9", base.Add(9*time.Minute))
	if err := s.Put(rec); err != nil { // prunes run 3, collecting
		t.Fatal(err)
	}
	staged = append(staged, "")
	for i, p := range staged {
		if p == "" {
			continue
		}
		_, err := os.Stat(p)
		if kept := i == 4; kept != (err == nil) {
			t.Errorf("run %d's artifact: kept %v, on disk %v (pruning keeps the last 2 runs)", i, kept, err == nil)
		}
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("an artifact no run names nor stages was kept")
	}
}
