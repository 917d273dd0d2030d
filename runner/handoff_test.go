package runner

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"modbay/modproto"
)

// handoffSource writes content as a file standing for a staged artifact
// and returns its path and digest.
func handoffSource(t *testing.T, content string) (string, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "staged")
	if err := os.WriteFile(p, []byte(content), 0o444); err != nil {
		t.Fatal(err)
	}
	return p, modproto.Digest([]byte(content))
}

// TestHandoffPlacesACopyInAFreshReadOnlyRoot: the declared read root is
// supplied, pointing at a directory made for this run that holds only
// the handed file, read-only, under its name; the run removes it.
func TestHandoffPlacesACopyInAFreshReadOnlyRoot(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("echo", "good")
	m := f.load("echo")
	src, digest := handoffSource(t, "# report\n")
	p, err := f.host.PlanWith(m, "t.echo", []byte(`{"name":"ada"}`), PlanOptions{Handoff: []HandoffFile{
		{Root: "corpus", Source: src, Name: "report.md", Digest: digest, Origin: "r1:report"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	root, ok := p.Request.Roots["corpus"]
	if !ok || root.Mode != modproto.RootReadOnly {
		t.Fatalf("roots: %+v", p.Request.Roots)
	}
	for _, miss := range p.Missing {
		if strings.Contains(miss, "corpus") {
			t.Fatalf("a handed root is supplied, not missing: %v", p.Missing)
		}
	}
	if !strings.HasPrefix(root.Path, canonical(filepath.Join(f.home, "handoff", p.Request.RequestID))) {
		t.Fatalf("the root %s is not the run's own handoff directory", root.Path)
	}
	entries, err := os.ReadDir(root.Path)
	if err != nil || len(entries) != 1 || entries[0].Name() != "report.md" {
		t.Fatalf("the root holds %v (%v), want only report.md", entries, err)
	}
	if len(p.Handoff) != 1 || p.Handoff[0].Rel != "report.md" || p.Handoff[0].Path != filepath.Join(root.Path, "report.md") || p.Handoff[0].Size != 9 {
		t.Fatalf("handed: %+v", p.Handoff)
	}
	fi, _ := os.Stat(p.Handoff[0].Path)
	di, _ := os.Stat(root.Path)
	if fi.Mode().Perm() != 0o444 || di.Mode().Perm() != 0o555 {
		t.Fatalf("modes: file %v dir %v", fi.Mode(), di.Mode())
	}
	if b, _ := os.ReadFile(p.Handoff[0].Path); string(b) != "# report\n" {
		t.Fatalf("copied %q", b)
	}
	res, err := f.host.Run(ctxGuard(t), p, true, nil)
	if err != nil || !res.OK() {
		t.Fatalf("run: %v %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(f.home, "handoff", p.Request.RequestID)); !os.IsNotExist(err) {
		t.Fatalf("the handoff directory outlived its run: %v", err)
	}
	if b, _ := os.ReadFile(src); string(b) != "# report\n" {
		t.Fatal("the source changed")
	}
}

// TestHandoffRefusals: only a declared read-only root takes a handoff,
// names are plain and unique, and the bytes must match the digest;
// nothing is left behind by a refusal.
func TestHandoffRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("echo", "good")
	m := f.load("echo")
	src, digest := handoffSource(t, "x")
	cases := map[string][]HandoffFile{
		"undeclared":    {{Root: "elsewhere", Source: src, Name: "a"}},
		"workspace":     {{Root: "workspace", Source: src, Name: "a"}},
		"written":       {{Root: "shared", Source: src, Name: "a"}},
		"bundle":        {{Root: "t_bundle", Source: src, Name: "a"}},
		"dotdot":        {{Root: "corpus", Source: src, Name: ".."}},
		"slash":         {{Root: "corpus", Source: src, Name: "a/b"}},
		"newline":       {{Root: "corpus", Source: src, Name: "a\nok b", Digest: digest}},
		"escape":        {{Root: "corpus", Source: src, Name: "a\x1b[2Jb", Digest: digest}},
		"not utf-8":     {{Root: "corpus", Source: src, Name: "a\xffb", Digest: digest}},
		"twice":         {{Root: "corpus", Source: src, Name: "a"}, {Root: "corpus", Source: src, Name: "a"}},
		"digest":        {{Root: "corpus", Source: src, Name: "a", Digest: modproto.Digest([]byte("y"))}},
		"not a file":    {{Root: "corpus", Source: filepath.Dir(src), Name: "a", Digest: digest}},
		"relative path": {{Root: "corpus", Source: "staged", Name: "a"}},
	}
	for name, files := range cases {
		_, err := f.host.PlanWith(m, "t.echo", []byte(`{"name":"ada"}`), PlanOptions{Handoff: files})
		if !errors.Is(err, ErrHandoff) {
			t.Errorf("%s: want ErrHandoff, got %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(f.home, "handoff")); len(entries) != 0 {
		t.Fatalf("a refused handoff left %d directories", len(entries))
	}
}

func TestHandoffName(t *testing.T) {
	for in, want := range map[string]string{"reports/a\nb.md": "", "reports/r.md": "r.md", "r.md": "r.md", `a\b.txt`: "b.txt", "..": "", ".": "", "": "", "a/": "a"} {
		if got := HandoffName(in); got != want {
			t.Errorf("HandoffName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHandoffRootsMatchCheck: every root HandoffRoots offers passes
// checkHandoff, and the others are refused.
func TestHandoffRootsMatchCheck(t *testing.T) {
	d := &modproto.Descriptor{Module: "m", Permissions: modproto.Permissions{
		FilesystemRead:  []string{"bundle", "workspace", "out", "in", "facet_bundle", "in", "media"},
		FilesystemWrite: []string{"out"},
	}}
	got := HandoffRoots(d)
	if !slices.Equal(got, []string{"in", "media"}) {
		t.Fatalf("HandoffRoots = %v, want [in media]", got)
	}
	for _, r := range d.Permissions.FilesystemRead {
		err := checkHandoff(d, []HandoffFile{{Root: r, Name: "a.txt", Source: "/dev/null"}})
		if offered := slices.Contains(got, r); offered != (err == nil) {
			t.Errorf("root %q: offered %v, checkHandoff %v", r, offered, err)
		}
	}
}
