package viewer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/common"
)

// memPrefs is a MarkdownPrefs in memory.
type memPrefs struct {
	on   map[string]bool
	sets []string
}

func (p *memPrefs) Markdown(module string) (bool, error) { return p.on[module], nil }

func (p *memPrefs) SetMarkdown(module string, on bool) error {
	p.on[module] = on
	p.sets = append(p.sets, module)
	return nil
}

// openRemembering opens testdata/remember/listing.txt (plain text, as an
// MCP tool sends it) for module with prefs.
func openRemembering(t *testing.T, module string, prefs MarkdownPrefs) *fixture {
	t.Helper()
	path, err := filepath.Abs("testdata/remember/listing.txt")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	com := common.New(true)
	com.Width, com.Height = 80, 20
	a := runner.VerifiedArtifact{
		Artifact: modproto.Artifact{ID: "content-0", Kind: "text", Path: "listing.txt", MediaType: "text/plain", Digest: modproto.Digest(src), Bytes: int64(len(src))},
		Staged:   path, Size: int64(len(src)),
	}
	f := &fixture{t: t, m: New(com, DefaultKeyMap(), Env{}, "req-1", a, nil, t.TempDir())}
	f.m.Remember(module, prefs)
	f.run(f.m.Load())
	return f
}

// TestMarkdownChoiceRemembered: m's choice is kept for the module, and
// the module's next text opens as chosen; another module's does not.
func TestMarkdownChoiceRemembered(t *testing.T) {
	prefs := &memPrefs{on: map[string]bool{}}
	f := openRemembering(t, "srv", prefs)
	if fr := f.frame(); !strings.Contains(fr, "__init__") {
		t.Fatalf("first open is not the text as sent:\n%s", fr)
	}
	f.key("m")
	if !prefs.on["srv"] || len(prefs.sets) != 1 {
		t.Fatalf("m kept %v (%v), want srv on", prefs.on, prefs.sets)
	}
	f = openRemembering(t, "srv", prefs)
	if fr := f.frame(); strings.Contains(fr, "__init__") || !strings.Contains(fr, "\x1b[1minit") {
		t.Errorf("srv's next text does not open as markdown:\n%s", fr)
	}
	if fr := openRemembering(t, "other", prefs).frame(); !strings.Contains(fr, "__init__") {
		t.Errorf("another module's text opens as markdown:\n%s", fr)
	}
	f.key("m") // back to the text
	if prefs.on["srv"] {
		t.Error("m back to the text is not kept")
	}
	if fr := f.frame(); !strings.Contains(fr, "__init__") {
		t.Errorf("m does not return to the text:\n%s", fr)
	}
}
