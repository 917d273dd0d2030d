package inputs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLastAndPresetsRoundTrip(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if sv, err := s.Load("m", "c"); err != nil || sv.Last != nil {
		t.Fatalf("empty store: %+v %v", sv, err)
	}
	if err := s.SaveLast("m", "c.run", json.RawMessage(`{"a":1.0}`), now); err != nil {
		t.Fatal(err)
	}
	if err := s.SavePreset("m", "c.run", "small", json.RawMessage(`{"a":2}`), now); err != nil {
		t.Fatal(err)
	}
	if err := s.SavePreset("m", "c.run", "small", json.RawMessage(`{"a":3}`), now); err != nil {
		t.Fatal(err)
	}
	sv, err := s.Load("m", "c.run")
	if err != nil {
		t.Fatal(err)
	}
	if string(sv.Last) != `{"a":1.0}` || len(sv.Presets) != 1 || string(sv.Presets[0].Input) != `{"a":3}` {
		t.Fatalf("saved %+v", sv)
	}
	if err := s.SavePreset("m", "c", " ", nil, now); err == nil {
		t.Fatal("a preset without a name was saved")
	}
}

func TestIDsCannotEscapeTheStore(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	p, err := s.path("../..", "a/../../b")
	if err != nil {
		t.Fatal(err)
	}
	if rel, err := filepath.Rel(s.Dir, p); err != nil || filepath.IsLocal(rel) == false {
		t.Fatalf("path %s escapes %s", p, s.Dir)
	}
}

func TestLoadRefusesAnOversizedFile(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	p, _ := s.path("m", "c")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, make([]byte, maxFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("m", "c"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("oversized file: %v", err)
	}
}

func TestDraftIsKeptUntilAnInputIsSent(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.SaveDraft("m", "c", json.RawMessage(`{ "q": "half typed" }`), now); err != nil {
		t.Fatal(err)
	}
	sv, err := s.Load("m", "c")
	if err != nil || string(sv.Draft) != `{"q":"half typed"}` || !sv.DraftAt.Equal(now) {
		t.Fatalf("draft not kept: %+v %v", sv, err)
	}
	if err := s.SaveLast("m", "c", json.RawMessage(`{"q":"sent"}`), now); err != nil {
		t.Fatal(err)
	}
	if sv, _ := s.Load("m", "c"); sv.Draft != nil || string(sv.Last) != `{"q":"sent"}` {
		t.Fatalf("the draft outlived the input sent: %+v", sv)
	}
}
