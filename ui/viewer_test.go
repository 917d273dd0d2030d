package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/internal/uitest"
	"modbay/ui/viewer"
)

func TestCopyNoClobberAddsSuffix(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "staged")
	if err := os.WriteFile(src, []byte("new"), 0o444); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "report.json"), []byte("old"), 0o644)
	p, err := viewer.CopyNoClobber(src, out, "report.json")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(p) != "report-2.json" {
		t.Fatalf("saved as %s, want report-2.json", p)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "report.json")); string(b) != "old" {
		t.Fatal("existing file was overwritten")
	}
}

func TestViewerRendersAndRerendersOnResize(t *testing.T) {
	dir := t.TempDir()
	body := []byte("{\"title\":\"Q1\",\"rows\":[1,2,3],\"evil\":\"\\u001b[2J\"}")
	staged := filepath.Join(dir, "blob")
	if err := os.WriteFile(staged, body, 0o444); err != nil {
		t.Fatal(err)
	}
	m, _ := newTest(t, nil, 80, 24)
	h := newHarness(t, m)
	resultFor(t, m, "invoke/success-with-artifact.json")
	m.result().res.Artifacts[0].Staged = staged
	m.result().res.Artifacts[0].Digest = modproto.Digest(body)
	m.result().res.Artifacts[0].Size = int64(len(body))
	h.key("enter")
	if m.screen() != screenViewer {
		t.Fatalf("screen %v, want viewer", m.screen())
	}
	h.until("render", func() bool { return !m.viewer().Loading() })
	out := frame(t, m)
	if !strings.Contains(out, `"title": "Q1"`) || !strings.Contains(out, "verified ✓") {
		t.Fatalf("viewer frame:\n%s", out)
	}
	_, cmd := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.do(cmd)
	h.until("re-render at 100", func() bool { return !m.viewer().Loading() })
	if out := frame(t, m); !strings.Contains(out, `"title": "Q1"`) {
		t.Fatalf("after resize:\n%s", out)
	}
	// Save a copy into a chosen directory.
	h.key("s")
	if len(m.dialogs) != 1 {
		t.Fatal("s did not open the save prompt")
	}
	// The prompt starts in <workspace>/saved, which the examples do not
	// read, not in the workspace itself.
	if out := frame(t, m); !strings.Contains(out, m.workspace+"/"+SavedCopiesDir) {
		t.Fatalf("the save prompt does not start in %s/%s:\n%s", m.workspace, SavedCopiesDir, out)
	}
	for range len(savedCopiesDir(m.workspace)) {
		h.key("backspace")
	}
	for _, msg := range uitest.Type(filepath.Join(dir, "saved")) {
		m.Update(msg)
	}
	h.key("enter")
	h.until("saved", func() bool { return strings.HasPrefix(m.viewer().Note(), "Saved") })
	if b, err := os.ReadFile(filepath.Join(dir, "saved", "quarterly.json")); err != nil || string(b) != string(body) {
		t.Fatalf("saved copy: %q %v", b, err)
	}
	h.key("esc")
	if m.screen() != screenResult {
		t.Fatalf("esc from viewer: screen %v", m.screen())
	}
}

// TestSavePromptExpandsTilde: the prompt says how its answer is read, and
// "~/somewhere" lands under the home directory, not in ./~/somewhere.
func TestSavePromptExpandsTilde(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Chdir(cwd)
	staged := filepath.Join(t.TempDir(), "blob")
	os.WriteFile(staged, []byte(`{"a":1}`), 0o444)
	m, _ := newTest(t, nil, 100, 24)
	h := newHarness(t, m)
	resultFor(t, m, "invoke/success-with-artifact.json")
	m.result().res.Artifacts[0].Staged = staged
	h.key("enter")
	h.until("render", func() bool { return m.viewer() != nil && !m.viewer().Loading() })
	h.key("s")
	if out := frame(t, m); !strings.Contains(out, "~ is your home directory") || !strings.Contains(out, "relative path starts in") {
		t.Fatalf("save prompt does not say how paths are read:\n%s", out)
	}
	for range len(savedCopiesDir(m.workspace)) {
		h.key("backspace")
	}
	for _, msg := range uitest.Type("~/somewhere") {
		m.Update(msg)
	}
	h.key("enter")
	h.until("saved", func() bool { return strings.HasPrefix(m.viewer().Note(), "Saved") })
	want := filepath.Join(home, "somewhere", "quarterly.json")
	if _, err := os.Stat(want); err != nil {
		t.Fatalf("not saved under home: %v (note %q)", err, m.viewer().Note())
	}
	if _, err := os.Stat(filepath.Join(cwd, "~")); err == nil {
		t.Fatal("created ./~ in the cwd")
	}
	if !strings.Contains(m.viewer().Note(), want) {
		t.Fatalf("note %q does not show %s", m.viewer().Note(), want)
	}
}

func TestViewerShowsMetadataForMedia(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	h := newHarness(t, m)
	v := viewer.New(m.com, m.keys.Viewer, viewer.Env{}, "req", runner.VerifiedArtifact{
		Artifact: modproto.Artifact{ID: "a1", Kind: "clip/v1", Path: "clip.mp4", MediaType: "video/mp4", Digest: "sha256:" + strings.Repeat("0", 64), Bytes: 5 << 20},
		Staged:   "/nonexistent/never-read",
	}, nil, "/ws")
	v.SetSize(m.com.Width, m.bodyHeight())
	m.push(&viewerScreen{v: v})
	h.do(v.Load())
	h.until("metadata", func() bool { return !v.Loading() })
	if v.Err() != nil {
		t.Fatalf("media artifact was read: %v", v.Err())
	}
	if out := frame(t, m); !strings.Contains(out, "video") || !strings.Contains(out, "save") {
		t.Fatalf("metadata frame:\n%s", out)
	}
}
