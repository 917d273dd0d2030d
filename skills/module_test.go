package skills

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/modproto"
)

// TestModuleDocs: a declared skill loads when its digest matches; a
// drifted file is refused with both digests; a path out of the module
// directory is refused.
func TestModuleDocs(t *testing.T) {
	dir := t.TempDir()
	skill := []byte("---\nname: s\ndescription: A module skill.\n---\n# Use it\n")
	overlay := []byte("# Overlay\n")
	os.MkdirAll(filepath.Join(dir, "skills", "s"), 0o755)
	os.MkdirAll(filepath.Join(dir, "agents"), 0o755)
	os.WriteFile(filepath.Join(dir, "skills", "s", "SKILL.md"), skill, 0o644)
	os.WriteFile(filepath.Join(dir, "agents", "o.md"), overlay, 0o644)
	d := &modproto.Descriptor{
		Skills:        []modproto.Skill{{ID: "s", Title: "S", Path: "skills/s/SKILL.md", Digest: modproto.Digest(skill), Tokens: 12}},
		AgentOverlays: []modproto.Overlay{{ID: "o", Path: "agents/o.md", Digest: modproto.Digest(overlay)}},
	}
	docs := Docs("mod", dir, d)
	if len(docs) != 2 || docs[0].Kind != KindSkill || docs[1].Kind != KindOverlay {
		t.Fatalf("docs %+v", docs)
	}
	b, err := docs[0].Load()
	if err != nil || docs[0].Body(b) != "# Use it\n" {
		t.Fatalf("skill: %v %q", err, b)
	}
	if b, err := docs[1].Load(); err != nil || docs[1].Body(b) != "# Overlay\n" {
		t.Fatalf("overlay: %v %q", err, b)
	}
	if TokenText(docs[0].Tokens, len(skill)) != "12 tokens" || TokenText(0, 10) != "≈ 3 tokens" || TokenText(0, 0) != "" {
		t.Errorf("token text")
	}

	os.WriteFile(filepath.Join(dir, "skills", "s", "SKILL.md"), append(skill, "Drifted.\n"...), 0o644)
	_, err = docs[0].Load()
	var de *DriftError
	if !errors.As(err, &de) || !errors.Is(err, ErrDrifted) || de.Declared != modproto.Digest(skill) || de.Actual == de.Declared || !strings.Contains(err.Error(), de.Actual) {
		t.Fatalf("drift: %v", err)
	}

	outside := filepath.Join(t.TempDir(), "x.md")
	os.WriteFile(outside, overlay, 0o644)
	os.Symlink(outside, filepath.Join(dir, "agents", "link.md"))
	for _, p := range []string{"agents/link.md", "../x.md", "/etc/passwd"} {
		doc := Doc{Module: "mod", Dir: dir, Kind: KindOverlay, ID: "x", Path: p, Digest: modproto.Digest(overlay)}
		if _, err := doc.Load(); !errors.Is(err, ErrOutsideSkill) {
			t.Errorf("%s: %v", p, err)
		}
	}
}
