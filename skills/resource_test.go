package skills

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReadResource reads text and base64, and refuses every way out of
// the folder: absolute, "..", a symlink out.
func TestReadResource(t *testing.T) {
	dir := filepath.Join(fixtures, "report-writer")
	r, err := ReadResource(dir, "references/style.md", "")
	if err != nil || r.Encoding != EncodingText || r.Content != "# Style\n\nShort sentences. One idea per paragraph.\n" {
		t.Fatalf("text: %v %+v", err, r)
	}
	if _, err := ReadResource(dir, "assets/logo.bin", EncodingText); err == nil {
		t.Error("binary read as text")
	}
	r, err = ReadResource(dir, "assets/logo.bin", EncodingBase64)
	raw, _ := os.ReadFile(filepath.Join(dir, "assets/logo.bin"))
	if err != nil || r.Content != base64.StdEncoding.EncodeToString(raw) || r.Bytes != len(raw) {
		t.Fatalf("base64: %v %+v", err, r)
	}
	if _, err := ReadResource(dir, "references/style.md", "hex"); err == nil {
		t.Error("unknown encoding accepted")
	}

	tmp := t.TempDir()
	skill := filepath.Join(tmp, "s")
	os.Mkdir(skill, 0o755)
	os.WriteFile(filepath.Join(tmp, "secret"), []byte("secret"), 0o644)
	os.Symlink(filepath.Join(tmp, "secret"), filepath.Join(skill, "link"))
	os.Symlink("../secret", filepath.Join(skill, "rel"))
	for _, loc := range []string{"/etc/passwd", "../secret", "a/../../secret", "link", "rel", ".", ""} {
		if _, err := ReadResource(skill, loc, ""); !errors.Is(err, ErrOutsideSkill) {
			t.Errorf("%q: err %v, want ErrOutsideSkill", loc, err)
		}
	}
}
