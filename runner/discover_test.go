package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func byID(mods []*Module) map[string][]*Module {
	out := map[string][]*Module{}
	for _, m := range mods {
		out[m.ID] = append(out[m.ID], m)
	}
	return out
}

func TestDiscoverCandidates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	mods := f.cfg.ModulesDir()
	f.addModule("alpha", "good")
	f.writeLauncher(filepath.Join(mods, "bare"), "good", "bare")                  // bare executable
	f.addLinkedModule("linked", "good")                                           // symlink to a regular file
	f.writeLauncher(filepath.Join(mods, ".hidden", ".hidden"), "good", ".hidden") // dot-name
	f.writeLauncher(filepath.Join(mods, ".dotbare"), "good", ".dotbare")
	f.addModule("noexec", "good")
	if err := os.Chmod(filepath.Join(mods, "noexec", "noexec"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(mods, "dirlink", "target"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(mods, "dirlink", "target"), filepath.Join(mods, "dirlink", "dirlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mods, "README.md"), []byte("not a module"), 0o644); err != nil {
		t.Fatal(err)
	}
	off := f.addModule("off", "good")
	if err := os.WriteFile(filepath.Join(off, ".disabled"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f.addModule("broken", "broken")
	f.addModule("wrongid", "wrong_id")
	f.addModule("invalid", "invalid")
	f.addModule("setup", "needs_setup")
	f.addModule("unprobed", "unprobed")
	// An extra claiming "alpha" again, one named for its id, and one
	// declaring an id other than its executable's name.
	f.writeLauncher(filepath.Join(f.home, "elsewhere", "alpha"), "good", "alpha")
	f.writeLauncher(filepath.Join(f.home, "extra", "extra-id"), "good", "extra-id")
	f.writeLauncher(filepath.Join(f.home, "extra", "xtra"), "good", "other-id")
	f.cfg.Modules = []string{filepath.Join(f.home, "elsewhere", "alpha"), "extra/extra-id", "extra/xtra", filepath.Join(f.home, "missing-module")}

	got := byID(f.host.Discover(ctxGuard(t)))
	for _, skipped := range []string{".hidden", ".dotbare", "dirlink", "README.md"} {
		if len(got[skipped]) > 0 {
			t.Errorf("%s was listed: %+v", skipped, got[skipped][0])
		}
	}
	want := map[string]Status{
		"bare": StatusReady, "linked": StatusReady, "off": StatusDisabled,
		"broken": StatusBroken, "wrongid": StatusBroken, "invalid": StatusBroken,
		"setup": StatusNeedsSetup, "unprobed": StatusReady, "extra-id": StatusReady,
		"missing-module": StatusBroken, "noexec": StatusBroken, "xtra": StatusBroken,
	}
	for id, st := range want {
		if len(got[id]) != 1 {
			t.Errorf("%s: listed %d times", id, len(got[id]))
			continue
		}
		if m := got[id][0]; m.Status != st {
			t.Errorf("%s: status %s (%s), want %s", id, m.Status, m.Reason, st)
		}
	}
	if m := got["xtra"]; len(m) == 1 && !strings.Contains(m[0].Reason, "must declare the id its executable is named") {
		t.Errorf("xtra: the refusal does not name the rule: %s", m[0].Reason)
	}
	if m := got["bare"]; len(m) == 1 && (m[0].Dir != mods || m[0].Origin != OriginHome) {
		t.Errorf("bare: dir %s origin %s", m[0].Dir, m[0].Origin)
	}
	if a := got["alpha"]; len(a) != 2 {
		t.Errorf("alpha listed %d times, want the module and its duplicate", len(a))
	} else {
		home, dup := a[0], a[1]
		if home.Origin != OriginHome {
			home, dup = dup, home
		}
		if home.Status != StatusReady || dup.Status != StatusBroken || !strings.Contains(dup.Reason, "already claimed by "+home.Exe) {
			t.Errorf("duplicate: home %s %q, extra %s %q", home.Status, home.Reason, dup.Status, dup.Reason)
		}
	}
	if m := got["extra-id"]; len(m) == 1 && (m[0].Origin != OriginConfig || m[0].Exe != filepath.Join(f.home, "extra", "extra-id")) {
		t.Errorf("extra: %+v", m[0])
	}
	if m := got["off"]; len(m) == 1 {
		if m[0].Descriptor == nil {
			t.Error("a disabled module is still described for display")
		}
		if _, err := f.host.Plan(m[0], "t.echo", nil); !errors.Is(err, ErrDisabled) {
			t.Errorf("plan of a disabled module: %v", err)
		}
	}
	if m := got["broken"]; len(m) == 1 {
		if !strings.Contains(m[0].Reason, "host.no_envelope") || !strings.Contains(m[0].Stderr, "something went wrong") {
			t.Errorf("broken: reason %q stderr %q", m[0].Reason, m[0].Stderr)
		}
		if _, err := f.host.Plan(m[0], "t.echo", nil); !errors.Is(err, ErrBroken) {
			t.Errorf("plan of a broken module: %v", err)
		}
	}
	if m := got["wrongid"]; len(m) == 1 && !strings.Contains(m[0].Reason, "wrongid-other") {
		t.Errorf("wrong id reason %q", m[0].Reason)
	}
	if m := got["invalid"]; len(m) == 1 && (len(m[0].Violations) < 2 || !strings.Contains(m[0].Reason, "docs/modules.md#the-descriptor")) {
		t.Errorf("invalid: %q %v", m[0].Reason, m[0].Violations)
	}
	if m := got["setup"]; len(m) == 1 {
		if !strings.Contains(m[0].Reason, "ffmpeg") || !strings.Contains(m[0].Reason, "install ffmpeg 6 or later") || strings.Contains(m[0].Reason, "sh") {
			t.Errorf("needs setup reason %q", m[0].Reason)
		}
		if _, err := f.host.Plan(m[0], "t.echo", []byte(`{"name":"x"}`)); err != nil {
			t.Errorf("a module that needs setup can still be planned: %v", err)
		}
	}
	if m := got["unprobed"]; len(m) == 1 {
		found := false
		for _, w := range m[0].Warnings {
			if w == "requirement API_KEY was not probed by the module" {
				found = true
			}
		}
		if !found {
			t.Errorf("unprobed warnings %q", m[0].Warnings)
		}
	}
	// Sorted by id.
	all := f.host.Discover(ctxGuard(t))
	for i := 1; i < len(all); i++ {
		if all[i-1].ID > all[i].ID {
			t.Errorf("not sorted: %s before %s", all[i-1].ID, all[i].ID)
		}
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("alpha", "good")
	f.writeLauncher(filepath.Join(f.home, "extra", "extra-id"), "good", "extra-id")
	f.cfg.Modules = []string{filepath.Join(f.home, "extra", "extra-id")}
	ctx := ctxGuard(t)
	if m, err := f.host.Load(ctx, "alpha"); err != nil || m.Status != StatusReady {
		t.Fatalf("load by id: %v %+v", err, m)
	}
	if m, err := f.host.Load(ctx, "extra-id"); err != nil || m.Origin != OriginConfig {
		t.Fatalf("load an extra by id: %v %+v", err, m)
	}
	if m, err := f.host.Load(ctx, filepath.Join(f.home, "extra", "extra-id")); err != nil || m.ID != "extra-id" || m.Origin != OriginFlag {
		t.Fatalf("load by path: %v %+v", err, m)
	}
	if _, err := f.host.Load(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("load of an unknown id: %v", err)
	}
	f.host.AddFlagModules(filepath.Join(f.home, "extra", "extra-id"))
	found := false
	for _, m := range f.host.Discover(ctx) {
		if m.ID == "extra-id" && m.Origin == OriginConfig {
			found = true // config wins; the same exe given again is listed once
		}
		if m.Origin == OriginFlag {
			t.Errorf("the same executable was listed twice: %+v", m)
		}
	}
	if !found {
		t.Error("extra not found")
	}
}

func TestDescribeCache(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("cached", "good")
	ctx := ctxGuard(t)
	m1, _ := f.host.Load(ctx, "cached")
	m2, _ := f.host.Load(ctx, "cached")
	if m1.Cached || !m2.Cached || f.describeCount("cached") != 1 {
		t.Fatalf("cached %v %v, describes %d", m1.Cached, m2.Cached, f.describeCount("cached"))
	}
	if m2.Status != StatusReady || m2.Descriptor == nil || !m2.DescribedAt.Equal(m1.DescribedAt) {
		t.Errorf("cached module %s %v %v", m2.Status, m2.DescribedAt, m1.DescribedAt)
	}
	// The cached verdict's descriptor is decoded without the checks the
	// first describe ran; it must be the same descriptor.
	if !reflect.DeepEqual(m1.Descriptor, m2.Descriptor) {
		t.Errorf("cached descriptor differs:\n%+v\n%+v", m1.Descriptor, m2.Descriptor)
	}
	entries, _ := os.ReadDir(filepath.Join(f.cfg.CacheDir(), "describe"))
	if len(entries) != 1 {
		t.Errorf("cache dir holds %d entries", len(entries))
	}
	// Changing the executable invalidates.
	exe := m1.Exe
	b, _ := os.ReadFile(exe)
	if err := os.WriteFile(exe, append(b, []byte("# changed\n")...), 0o755); err != nil {
		t.Fatal(err)
	}
	if m, _ := f.host.Load(ctx, "cached"); m.Cached || f.describeCount("cached") != 2 {
		t.Errorf("after a change: cached %v, describes %d", m.Cached, f.describeCount("cached"))
	}
	// Same bytes, new mtime: the key is the stat, never the bytes
	// (docs/protocol.md §18), so it is described again, the identity
	// record follows the new stat, and the executable was never hashed.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(exe, later, later); err != nil {
		t.Fatal(err)
	}
	if m, _ := f.host.Load(ctx, "cached"); m.Cached || f.describeCount("cached") != 3 {
		t.Errorf("after touch: cached %v, describes %d", m.Cached, f.describeCount("cached"))
	}
	if e, ok := f.host.readDescribeEntry(exe); !ok || e.Identity == nil || e.Identity.MtimeNS != later.UnixNano() || e.Identity.SHA256 != "" {
		t.Errorf("identity record after touch: %+v", e.Identity)
	}
	if m, _ := f.host.Load(ctx, "cached"); !m.Cached || f.describeCount("cached") != 3 {
		t.Errorf("unchanged since: cached %v, describes %d", m.Cached, f.describeCount("cached"))
	}
	if m := f.host.Redescribe(ctx, m2); m.Cached || f.describeCount("cached") != 4 {
		t.Errorf("redescribe used the cache")
	}
}

func TestDescribeFailureIsNotCached(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("flaky", "good")
	fail := filepath.Join(f.auxDir("flaky"), "fail")
	if err := os.MkdirAll(filepath.Dir(fail), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fail, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := ctxGuard(t)
	for i := 1; i <= 2; i++ {
		m, _ := f.host.Load(ctx, "flaky")
		if m.Status != StatusBroken || m.Cached || f.describeCount("flaky") != i {
			t.Fatalf("try %d: %s cached=%v describes=%d", i, m.Status, m.Cached, f.describeCount("flaky"))
		}
	}
	os.Remove(fail)
	if m, _ := f.host.Load(ctx, "flaky"); m.Status != StatusReady || m.Cached {
		t.Fatalf("recovered: %s cached=%v", m.Status, m.Cached)
	}
	if m, _ := f.host.Load(ctx, "flaky"); !m.Cached || f.describeCount("flaky") != 3 {
		t.Fatalf("then cached: %v, describes %d", m.Cached, f.describeCount("flaky"))
	}
}

func TestBundleFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := f.addModule("bundle", "good")
	m := f.load("bundle")
	if len(m.Warnings) != 0 {
		t.Errorf("warnings on a clean bundle: %q", m.Warnings)
	}
	p, err := f.host.SkillPath(m, "s1")
	if err != nil || p != filepath.Join(dir, "skills", "s1", "SKILL.md") {
		t.Fatalf("skill path %q %v", p, err)
	}
	if _, err := f.host.OverlayPath(m, "o1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.host.SkillPath(m, "nope"); err == nil || errors.Is(err, ErrContentRefused) {
		t.Errorf("undeclared skill: %v", err)
	}
	// Drift the skill; replace the overlay by a symlink outside the dir.
	if err := os.WriteFile(filepath.Join(dir, "skills", "s1", "SKILL.md"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(f.home, "outside.md")
	if err := os.WriteFile(outside, []byte(skillContent), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "agents", "o1.md"))
	if err := os.Symlink(outside, filepath.Join(dir, "agents", "o1.md")); err != nil {
		t.Fatal(err)
	}
	m = f.load("bundle") // cached describe; bundle checked afresh
	if m.Status != StatusReady {
		t.Errorf("drifted files made the module %s", m.Status)
	}
	joined := strings.Join(m.Warnings, "\n")
	if !strings.Contains(joined, "skill s1: file digest sha256:") || !strings.Contains(joined, "does not match declared sha256:") ||
		!strings.Contains(joined, "content refused") || !strings.Contains(joined, "overlay o1: path \"agents/o1.md\" resolves outside") {
		t.Errorf("warnings %q", m.Warnings)
	}
	if _, err := f.host.SkillPath(m, "s1"); !errors.Is(err, ErrContentRefused) {
		t.Errorf("drifted skill served: %v", err)
	}
	if _, err := f.host.OverlayPath(m, "o1"); !errors.Is(err, ErrContentRefused) {
		t.Errorf("escaping overlay served: %v", err)
	}
	// Nothing changed since: the bundle verdict cached with the describe
	// is replayed, the same warnings without hashing the files again.
	again := f.load("bundle")
	if !again.Cached || strings.Join(again.Warnings, "\n") != joined {
		t.Errorf("cached bundle verdict: cached %v, warnings %q, want %q", again.Cached, again.Warnings, m.Warnings)
	}
	// A skill fixed with the same size and an older mtime is still seen:
	// the listing holds the mtime in nanoseconds.
	if err := os.WriteFile(filepath.Join(dir, "skills", "s1", "SKILL.md"), []byte(skillContent), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, "skills", "s1", "SKILL.md"), old, old)
	if fixed := f.load("bundle"); strings.Contains(strings.Join(fixed.Warnings, "\n"), "skill s1") {
		t.Errorf("a fixed skill still refused: %q", fixed.Warnings)
	}
}

// TestRedescribeRefreshesTheCache: a Redescribe bypasses the cache and
// replaces its entry, so the next Load is served the fresh describe instead
// of the stale one.
func TestRedescribeRefreshesTheCache(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("fresh", "good")
	ctx := ctxGuard(t)
	m1, _ := f.host.Load(ctx, "fresh")
	m2 := f.host.Redescribe(ctx, m1)
	if m2.Cached || f.describeCount("fresh") != 2 {
		t.Fatalf("redescribe: cached %v, describes %d", m2.Cached, f.describeCount("fresh"))
	}
	m3, _ := f.host.Load(ctx, "fresh")
	if !m3.Cached || f.describeCount("fresh") != 2 || !m3.DescribedAt.Equal(m2.DescribedAt) {
		t.Fatalf("after redescribe: cached %v, describes %d, described at %v (want %v)",
			m3.Cached, f.describeCount("fresh"), m3.DescribedAt, m2.DescribedAt)
	}
}

// TestApplyVerdictDecodesAsTheJudge: a cached verdict's descriptor,
// decoded without the key checks, is the descriptor the full decoders give
// (normalized alike: "required": null, absent collections), and a cached
// stdout that no longer decodes is judged afresh.
func TestApplyVerdictDecodesAsTheJudge(t *testing.T) {
	path := filepath.Join("testdata", "wholerequest", "describe.json")
	stdout, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := kitchenDescriptor(t)
	m := &Module{}
	if !applyVerdict(m, stdout, &cachedVerdict{ID: "kitchen", Status: StatusReady}) {
		t.Fatal("a valid cached describe was refused")
	}
	if !reflect.DeepEqual(m.Descriptor, want) {
		t.Errorf("descriptor differs:\n%+v\n%+v", m.Descriptor, want)
	}
	if applyVerdict(&Module{}, stdout[:len(stdout)/2], &cachedVerdict{}) {
		t.Error("a truncated cached describe was applied")
	}
}

// TestDescribeCacheOldFormatIsAMiss: an entry in the earlier one-object
// format (stdout inside the JSON) is a miss: the module is described again
// and its entry rewritten in the current format.
func TestDescribeCacheOldFormatIsAMiss(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("old", "good")
	ctx := ctxGuard(t)
	m, _ := f.host.Load(ctx, "old")
	e, ok := f.host.readDescribeEntry(m.Exe)
	if !ok {
		t.Fatal("no entry after a describe")
	}
	old, err := json.Marshal(struct {
		describeCacheEntry
		Stdout json.RawMessage `json:"stdout"`
	}{e, e.Stdout})
	if err != nil {
		t.Fatal(err)
	}
	path := f.host.describeCacheFile(e.Key)
	if err := os.WriteFile(path, append(old, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if m, _ := f.host.Load(ctx, "old"); m.Cached || m.Status != StatusReady || f.describeCount("old") != 2 {
		t.Fatalf("old entry: cached %v, %s, describes %d", m.Cached, m.Status, f.describeCount("old"))
	}
	if m, _ := f.host.Load(ctx, "old"); !m.Cached || f.describeCount("old") != 2 {
		t.Errorf("rewritten entry: cached %v, describes %d", m.Cached, f.describeCount("old"))
	}
}

// TestDirListingDigestMatchesWalkDir: the descriptor-relative listing
// hashes what filepath.WalkDir's walk does (same order, skips, symlinks
// listed as themselves, the executable left out, the bound).
func TestDirListingDigestMatchesWalkDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mod")
	for _, p := range []string{"mod", "b/z.txt", "b/a/x", "a.txt", ".git/HEAD", "node_modules/p/i.js", "c/.hidden/y", "c/.f", "Z"} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("b", filepath.Join(dir, "link-dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nonexistent", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "mod")
	got, want := dirListingDigest(dir, exe), walkListingDigest(dir, exe)
	if got != want || !strings.HasPrefix(got, "files=7 ") {
		t.Fatalf("listing %s, WalkDir's %s (want 7 files)", got, want)
	}
	for i := range maxDirEntries + 5 {
		if err := os.WriteFile(filepath.Join(dir, "b", fmt.Sprintf("f%04d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := dirListingDigest(dir, exe), walkListingDigest(dir, exe); got != want || !strings.HasPrefix(got, fmt.Sprintf("files=%d ", maxDirEntries)) {
		t.Fatalf("bounded listing %s, WalkDir's %s", got, want)
	}
}

// ExeChanged sees an in-place edit of a described module's executable (a
// cached describe keeps the stat too), and nothing else.
func TestExeChanged(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("edited", "good")
	ctx := ctxGuard(t)
	fresh := f.load("edited")
	cached, _ := f.host.Load(ctx, "edited")
	if !cached.Cached || fresh.ExeChanged() || cached.ExeChanged() {
		t.Fatalf("unchanged: cached %v, ExeChanged %v %v", cached.Cached, fresh.ExeChanged(), cached.ExeChanged())
	}
	// A file beside it is not looked at (Host.Changed is).
	if err := os.WriteFile(filepath.Join(filepath.Dir(fresh.Exe), "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fresh.ExeChanged() {
		t.Error("a file beside the executable counted as an edit of it")
	}
	b, _ := os.ReadFile(fresh.Exe)
	if err := os.WriteFile(fresh.Exe, append(b, "# edited\n"...), 0o755); err != nil {
		t.Fatal(err)
	}
	if !fresh.ExeChanged() || !cached.ExeChanged() {
		t.Error("an in-place edit not seen")
	}
	if again, _ := f.host.Load(ctx, "edited"); again.ExeChanged() {
		t.Error("described again, it still counts as changed")
	}
	if (&Module{ID: "x"}).ExeChanged() {
		t.Error("a module that keeps no stat counts as changed")
	}
}

// TestBundleFileTooBigNotHashed: a skill file past MaxBundleFileBytes is
// refused by its size, never read: a 20 GiB sparse one took discovery
// 77 s to hash.
func TestBundleFileTooBigNotHashed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := f.addModule("bundle", "good")
	if err := os.Truncate(filepath.Join(dir, "skills", "s1", "SKILL.md"), 20<<30); err != nil {
		t.Skip("no sparse 20 GiB file here:", err)
	}
	m := f.load("bundle")
	joined := strings.Join(m.Warnings, "\n")
	if !strings.Contains(joined, "skill s1: file skills/s1/SKILL.md is 21474836480 bytes, over the 2 MiB a skill or overlay may be") {
		t.Errorf("warnings %q", m.Warnings)
	}
	if _, err := f.host.SkillPath(m, "s1"); !errors.Is(err, ErrContentRefused) {
		t.Errorf("oversized skill served: %v", err)
	}
}
