package approval

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A stored question's answer applies once, to the same call (tool and
// input) of the same identity, within its expiry; the first answer wins.
func TestStoredAnswerAppliesOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), PendingDir)
	now := time.Now()
	key := CallKey("fetch_url", []byte(`{"url":"http://x"}`))
	if err := Store(dir, Stored{Question: Question{ID: "apr_01"}, Key: key, Identity: "/m/fetch@1", Expires: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, ok := TakeAnswer(dir, key, "/m/fetch@1", now); ok {
		t.Fatal("an answer taken before any was given")
	}
	if err := AnswerStored(dir, "apr_01", Answer{Decision: Once, By: "the cockpit (one)"}, now); err != nil {
		t.Fatal(err)
	}
	if err := AnswerStored(dir, "apr_01", Answer{Decision: Deny, By: "the cockpit (two)"}, now); err == nil {
		t.Error("a second answer was kept")
	}
	if _, ok := TakeAnswer(dir, CallKey("fetch_url", []byte(`{"url":"http://y"}`)), "/m/fetch@1", now); ok {
		t.Error("the answer applied to another input")
	}
	if _, ok := TakeAnswer(dir, key, "/m/fetch@2", now); ok {
		t.Error("the answer applied to another identity")
	}
	a, ok := TakeAnswer(dir, key, "/m/fetch@1", now)
	if !ok || a.Decision != Once || a.By != "the cockpit (one)" {
		t.Fatalf("taken: %+v %v", a, ok)
	}
	if _, ok := TakeAnswer(dir, key, "/m/fetch@1", now); ok {
		t.Error("the answer applied twice")
	}
	// Expired: not answered, and removed.
	if err := Store(dir, Stored{Question: Question{ID: "apr_02"}, Key: key, Identity: "/m/fetch@1", Expires: now.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	if err := AnswerStored(dir, "apr_02", Answer{Decision: Once}, now.Add(time.Minute)); err == nil {
		t.Error("an expired question was answered")
	}
	if _, err := os.Stat(filepath.Join(dir, "apr_02.json")); err == nil {
		t.Error("an expired question was kept")
	}
	// A hostile id names no file outside dir.
	if err := Store(dir, Stored{Question: Question{ID: "apr_../../x"}}); err == nil {
		t.Error("an id with a path was stored")
	}
}
