package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/config"
	"modbay/runner"
)

// TestReloadRereadsConfig: the cockpit's r (Options.Reload) reads
// config.yaml again — a binary mapped after start is resolved by the next
// discovery — and a config.yaml that no longer parses keeps the previous
// config and says where it broke (file:line:column).
func TestReloadRereadsConfig(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	g := &globals{home: home, io: systemStreams(io.Discard, io.Discard)}
	e, err := g.env(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, c := range g.cleanups {
			c()
		}
	}()
	reload := g.reloader(e)
	status := func(h *runner.Host) runner.Status {
		t.Helper()
		m, err := h.Load(ctx, "transcode")
		if err != nil {
			t.Fatal(err)
		}
		return m.Status
	}
	if s := status(e.host); s != runner.StatusNeedsSetup {
		t.Fatalf("transcode before the edit: %s, want needs setup", s)
	}

	// The person maps the binary the detail pane asks for, then presses r.
	bin := filepath.Join(t.TempDir(), "ffmpeg-modbay-example")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(home, config.FileName)
	if err := os.WriteFile(cfgPath, []byte("binaries:\n  ffmpeg-modbay-example: "+bin+"\nsandbox: off\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := reload(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := r.Backend.(*runner.Host)
	if !ok || h.Config().Binaries["ffmpeg-modbay-example"] != bin || h.Config().Sandbox != config.SandboxOff {
		t.Fatalf("reloaded config %+v", h.Config())
	}
	if s := status(h); s != runner.StatusReady {
		t.Errorf("transcode after r: %s, want ready", s)
	}
	if r.Workspace != filepath.Join(home, "workspace") || !strings.Contains(r.Banner, "built-in examples") || len(r.SkillWritableRoots) == 0 {
		t.Errorf("reloaded options %+v", r)
	}

	// A config that no longer parses: the error names file:line, and the
	// config taken last stays the one a later good reload replaces.
	if err := os.WriteFile(cfgPath, []byte("binaries:\n  ffmpeg-modbay-example: "+bin+"\n  - oops\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = reload(ctx)
	var fe *config.FileError
	if !errors.As(err, &fe) || !strings.HasPrefix(fe.Short(), cfgPath+":3:") {
		t.Fatalf("broken config: %v, want a FileError at %s:3", err, cfgPath)
	}
	if err := os.WriteFile(cfgPath, []byte("sandbox: off\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err = reload(ctx); err != nil {
		t.Fatal(err)
	}
	if s := status(r.Backend.(*runner.Host)); s != runner.StatusNeedsSetup {
		t.Errorf("transcode after unmapping: %s, want needs setup", s)
	}
}
