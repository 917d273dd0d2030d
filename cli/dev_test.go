package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestDevParsesAndRefusesWhatItCannotOpen: `modbay dev PATH` parses PATH;
// a path that does not exist and a missing terminal are usage errors
// before any cockpit starts.
func TestDevParsesAndRefusesWhatItCannotOpen(t *testing.T) {
	var got *DevOptions
	hooks := &runHooks{dev: func(_ context.Context, o *DevOptions) error { got = o; return nil }}
	ios, _, _ := fakeStreams(true)
	if code := execute(context.Background(), []string{"--home", "/h", "dev", "./mod"}, ios, hooks); code != ExitOK || got == nil || got.Path != "./mod" || got.G.home != "/h" {
		t.Fatalf("exit %d, options %+v", code, got)
	}
	ios, _, errb := fakeStreams(true)
	if code := execute(context.Background(), []string{"--home", t.TempDir(), "dev", filepath.Join(t.TempDir(), "absent")}, ios, nil); code != ExitUsage || !strings.Contains(errb.String(), "no such file") {
		t.Errorf("absent path: exit %d, %q", code, errb)
	}
	ios, _, errb = fakeStreams(false)
	if code := execute(context.Background(), []string{"--home", t.TempDir(), "dev", t.TempDir()}, ios, nil); code != ExitUsage || !strings.Contains(errb.String(), "no terminal") {
		t.Errorf("no terminal: exit %d, %q", code, errb)
	}
}
