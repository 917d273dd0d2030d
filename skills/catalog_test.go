package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFoldersAndScan: the project folder is the git root's, then the
// home's, config's and the flag's; a name seen twice gets a hash suffix;
// a skill inside a writable root is marked; missing folders are listed.
func TestFoldersAndScan(t *testing.T) {
	proj := t.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	sub := filepath.Join(proj, "a", "b")
	os.MkdirAll(sub, 0o755)
	home := t.TempDir()
	mk := func(parent, name, desc string) string {
		d := filepath.Join(parent, name)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, FileName), fm("name: "+name, "description: "+desc), 0o644)
		return d
	}
	mk(filepath.Join(proj, ".agents", "skills"), "tidy", "Project tidy.")
	mk(filepath.Join(home, ".agents", "skills"), "tidy", "Home tidy.")
	ws := t.TempDir()
	mk(ws, "planted", "Written by a module.")
	single := mk(t.TempDir(), "lone", "A folder that is itself a skill.")

	fs := Folders(sub, home, []string{ws, "/no/such/dir"}, []string{single, ws})
	var got []string
	for _, f := range fs {
		got = append(got, f.Source+":"+f.Path)
	}
	want := []string{
		"project:" + filepath.Join(proj, ".agents", "skills"), "home:" + filepath.Join(home, ".agents", "skills"),
		"config:" + ws, "config:/no/such/dir", "flag:" + single,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("folders\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	c := Scan(fs, []string{ws})
	if len(c.Skills) != 4 || len(c.Missing) != 1 || c.Missing[0] != "/no/such/dir" {
		t.Fatalf("catalog %+v", c)
	}
	first, second := c.Skills[0], c.Skills[1]
	if first.Key.Name != "tidy" || first.Description != "Project tidy." || second.Key.Name != "tidy"+HashSuffix(second.Key.Location) || second.Name != "tidy" {
		t.Errorf("collision: %q %q", first.Key.Name, second.Key.Name)
	}
	if len(HashSuffix("x")) != 9 {
		t.Errorf("suffix %q", HashSuffix("x"))
	}
	if !c.Skills[2].ModuleWritable || c.Skills[0].ModuleWritable || c.Skills[3].Name != "lone" {
		t.Errorf("marks: %+v", c.Skills)
	}
	if r, ok := c.Find(second.Key.Name); !ok || r.Description != "Home tidy." {
		t.Errorf("find: %v %+v", ok, r)
	}
	if ProjectRoot(home) != home {
		t.Errorf("no git root: %s", ProjectRoot(home))
	}
}
