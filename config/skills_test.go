package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestLoadSkills reads the skills section: dirs (relative to the home)
// and scripts, off unless set.
func TestLoadSkills(t *testing.T) {
	home := t.TempDir()
	c, err := Load(home)
	if err != nil || c.Skills.Scripts || c.Skills.Dirs != nil {
		t.Fatalf("default: %v %+v", err, c.Skills)
	}
	os.WriteFile(filepath.Join(home, FileName), []byte("skills:\n  dirs: [/abs/skills, mine]\n  scripts: true\n"), 0o600)
	c, err = Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Skills.Scripts || !reflect.DeepEqual(c.Skills.Dirs, []string{"/abs/skills", filepath.Join(home, "mine")}) {
		t.Errorf("skills %+v", c.Skills)
	}
	os.WriteFile(filepath.Join(home, FileName), []byte("skills:\n  script: true\n"), 0o600)
	if _, err := Load(home); err == nil {
		t.Error("a misspelt skills key was accepted")
	}
}
