package skills

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"modbay/modproto"
)

const fixtures = "testdata/skills"

// TestIndexFixture indexes the fixture with every field and resource.
func TestIndexFixture(t *testing.T) {
	r, err := Index(filepath.Join(fixtures, "report-writer"))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(fixtures, "report-writer", FileName))
	if r.Name != "report-writer" || r.Key.Type != ProviderFS || !filepath.IsAbs(r.Key.Location) || r.DisplayName != "Report writer" || r.Insert != InsertUserMessage {
		t.Errorf("record: %+v", r)
	}
	if r.Digest != modproto.Digest(data) || r.Bytes != len(data) || r.Tokens != (len(data)+3)/4 {
		t.Errorf("digest %s bytes %d tokens %d", r.Digest, r.Bytes, r.Tokens)
	}
	want := "[assets/logo.bin references/style.md scripts/count.sh scripts/notes.txt scripts/sleep.sh scripts/spew.sh]"
	if fmt.Sprint(r.Resources.Locations) != want || r.Resources.TotalCount != 6 || !r.Resources.HasResources || r.Resources.MoreLocations {
		t.Errorf("resources %+v", r.Resources)
	}
	if len(r.Arguments) != 3 || r.Arguments[1].Default != "plain" || r.RawFrontmatter["license"] != "MIT" || len(r.Warnings) != 0 || !strings.HasPrefix(r.Body, "\n# Report on $topic") {
		t.Errorf("args %v raw %v warnings %v body %q", r.Arguments, r.RawFrontmatter, r.Warnings, r.Body[:20])
	}
}

// TestIndexFixtureWarnings: each fixture gives the warnings its rules do.
func TestIndexFixtureWarnings(t *testing.T) {
	r, err := Index(filepath.Join(fixtures, "other-name"))
	if err != nil || len(r.Warnings) != 3 || !r.Strict() {
		t.Fatalf("other-name: %v %q", err, r.Warnings)
	}
	for i, w := range []string{"lowercase letters", `differs from its folder's name "other-name"`, "type: unknown key"} {
		if !strings.Contains(r.Warnings[i], w) {
			t.Errorf("warning %d %q, want %q", i, r.Warnings[i], w)
		}
	}
	r, err = Index(filepath.Join(fixtures, "no-description"))
	if !errors.Is(err, ErrUnusable) || r.Usable() || r.Name != "no-description" || r.Digest == "" {
		t.Errorf("no-description: %v %+v", err, r)
	}
	r, err = Index(filepath.Join(fixtures, "windows-file"))
	if err != nil || r.Body != "Line one.\nLine two.\n" || len(r.Problems) != 1 || r.Strict() {
		t.Errorf("windows-file: %v %q %+v", err, r.Body, r.Problems)
	}
	if _, err := Index(t.TempDir()); !errors.Is(err, ErrUnusable) {
		t.Errorf("empty folder: %v", err)
	}
}

// TestIndexResourcesCapped lists at most MaxResourceLocations with the
// total and "more"; symlinks are neither listed nor followed.
func TestIndexResourcesCapped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "big")
	os.MkdirAll(filepath.Join(dir, "r"), 0o755)
	os.WriteFile(filepath.Join(dir, FileName), fm("name: big", "description: Many files."), 0o644)
	for i := range MaxResourceLocations + 5 {
		os.WriteFile(filepath.Join(dir, "r", fmt.Sprintf("%04d.txt", i)), nil, 0o644)
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link"))
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "secret"))
	r, err := Index(dir)
	if err != nil {
		t.Fatal(err)
	}
	ri := r.Resources
	if ri.TotalCount != MaxResourceLocations+5 || len(ri.Locations) != MaxResourceLocations || !ri.MoreLocations || ri.Locations[0] != "r/0000.txt" {
		t.Errorf("total %d listed %d more %v first %q", ri.TotalCount, len(ri.Locations), ri.MoreLocations, ri.Locations[0])
	}
}

// TestIndexSymlinkedSkillFile: a SKILL.md that is a symlink out of the
// folder is refused.
func TestIndexSymlinkedSkillFile(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "SKILL.md")
	os.WriteFile(outside, fm("name: x", "description: Elsewhere."), 0o644)
	dir := filepath.Join(t.TempDir(), "x")
	os.Mkdir(dir, 0o755)
	os.Symlink(outside, filepath.Join(dir, FileName))
	if r, err := Index(dir); err == nil || r.Usable() {
		t.Fatalf("a SKILL.md symlinked out of its folder was read: %+v", r)
	}
}

// TestIndexFIFOSkillFile: a SKILL.md that is a FIFO is refused at once
// (opening it for reading waited for a writer forever).
func TestIndexFIFOSkillFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "x")
	os.Mkdir(dir, 0o755)
	if err := syscall.Mkfifo(filepath.Join(dir, FileName), 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Index(dir); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("a FIFO SKILL.md: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("indexing a FIFO SKILL.md waited for a writer")
	}
}

// BenchmarkIndex1000 indexes 1 000 skill folders (each with a SKILL.md of
// ~1 KB and three resources), files in the OS cache after the first run
// (under 1 s).
func BenchmarkIndex1000(b *testing.B) {
	top := b.TempDir()
	body := strings.Repeat("Some guidance for the agent. ", 30)
	for i := range 1000 {
		d := filepath.Join(top, fmt.Sprintf("skill-%04d", i))
		os.MkdirAll(filepath.Join(d, "references"), 0o755)
		os.WriteFile(filepath.Join(d, FileName), []byte(fmt.Sprintf("---\nname: skill-%04d\ndescription: >-\n  Skill number %d. Use it\n  when benchmarking.\nmetadata:\n  author: bench\n---\n%s\n", i, i, body)), 0o644)
		for _, r := range []string{"references/a.md", "references/b.md", "notes.txt"} {
			os.WriteFile(filepath.Join(d, r), []byte("x"), 0o644)
		}
	}
	folders := []Folder{{Path: top, Source: SourceFlag}}
	Scan(folders, nil) // warm the OS cache
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	n := 0
	for b.Loop() {
		if c := Scan(folders, nil); len(c.Skills) != 1000 {
			b.Fatalf("%d skills", len(c.Skills))
		}
		n++
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) / time.Duration(n)
	b.ReportMetric(float64(cpu.Milliseconds()), "cpu-ms/op")
}
