package runner

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"modbay/config"
	"modbay/modproto"
)

// FuzzParseJob: a job handle is read from untrusted results.
func FuzzParseJob(f *testing.F) {
	f.Add([]byte(`{"job":{"job_id":"j","state":"running","percent":5}}`))
	f.Add([]byte(`{"job_id":"j","percent":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if js := parseJob(b); js != nil && js.ID == "" {
			t.Fatal("a job without an id")
		}
	})
}

// FuzzArtifactPath: whatever path a module names, an artifact verified
// under a root is a regular file inside the directory opened for that root:
// never the file behind a symlink, a "..", an absolute path or a hard link
// to a file older than the run, and the staged copy holds the bytes the
// digest names. Seeds are the artifact paths of the project's fixtures.
func FuzzArtifactPath(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "wholerequest", "run-with-artifacts.json"))
	if err != nil {
		f.Fatal(err)
	}
	env, err := modproto.DecodeEnvelope(b)
	if err != nil {
		f.Fatal(err)
	}
	for _, a := range env.Execution.Artifacts {
		f.Add(a.Path)
	}
	for _, p := range []string{"shots/tatin-000.jpg", "shots/../shots/tatin-000.jpg", "../outside/secret", "/etc/passwd",
		"link/secret", "linkfile", "hard", "shots", "shots/", "./shots/tatin-000.jpg", "shots//tatin-000.jpg", `shots\tatin-000.jpg`, ""} {
		f.Add(p)
	}
	home := f.TempDir()
	cfg, err := config.Load(home)
	if err != nil {
		f.Fatal(err)
	}
	h := NewHost(cfg)
	outside := filepath.Join(home, "outside")
	root := filepath.Join(home, "workspace")
	for _, d := range []string{outside, filepath.Join(root, "shots")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	secret := []byte("secret")
	inside := []byte("frame")
	must := func(err error) {
		if err != nil {
			f.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "secret"), secret, 0o600))
	must(os.WriteFile(filepath.Join(root, "shots", "tatin-000.jpg"), inside, 0o644))
	must(os.Symlink(outside, filepath.Join(root, "link")))
	must(os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "linkfile")))
	must(os.Link(filepath.Join(outside, "secret"), filepath.Join(root, "hard")))
	roots := map[string]modproto.Root{"w": {Path: root, Mode: modproto.RootReadWrite}}
	dirs, roots, err := h.openRoots(roots)
	if err != nil {
		f.Fatal(err)
	}
	time.Sleep(2 * coarseClockSlack) // the run starts well after the secret was made
	started := time.Now()
	f.Fuzz(func(t *testing.T, path string) {
		for _, digest := range []string{modproto.Digest(inside), modproto.Digest(secret)} {
			a := modproto.Artifact{ID: "a", Kind: "k", Root: "w", Path: path, Digest: digest}
			va, fail := h.verifyArtifact(nil, nil, roots, dirs, started, a)
			if fail != nil {
				continue
			}
			if digest != modproto.Digest(inside) {
				t.Fatalf("path %q: the secret outside the root was verified", path)
			}
			if !within(root, va.Source) {
				t.Fatalf("path %q: source %s is outside the root", path, va.Source)
			}
			if got, _ := os.ReadFile(va.Staged); modproto.Digest(got) != digest {
				t.Fatalf("path %q: the staged copy does not hold the verified bytes", path)
			}
		}
	})
}
