//go:build linux

package contain

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestProbeCache: a record under this boot's key is the answer, without
// probing; a record under another key (another boot, binary or config) is
// probed over and replaced.
func TestProbeCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "probe.json")
	key, err := probeKey("config A")
	if err != nil {
		t.Skipf("no probe key here: %v", err)
	}
	if other, _ := probeKey("config B"); other == key {
		t.Fatal("the config is not in the key")
	}
	cacheMu.Lock()
	oldPath, oldKey := cachePath, cacheKey
	cachePath, cacheKey = path, key
	cacheMu.Unlock()
	t.Cleanup(func() {
		cacheMu.Lock()
		cachePath, cacheKey = oldPath, oldKey
		cacheMu.Unlock()
	})
	write := func(rec probeRecord) {
		t.Helper()
		b, _ := json.Marshal(rec)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	marked := Support{LandlockWhy: "from the cache"}
	write(probeRecord{Key: key, Support: marked})
	if got := probeWithCache(); got != marked {
		t.Fatalf("a record under this key was not the answer: %+v", got)
	}
	write(probeRecord{Key: "another boot", Support: marked})
	got := probeWithCache()
	if got == marked {
		t.Fatal("a record under another key was the answer")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec probeRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.Key != key || rec.Support != got {
		t.Fatalf("the record was not replaced by the new answer: %s (%v)", b, err)
	}
}
