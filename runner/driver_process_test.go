package runner

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"modbay/modproto"
)

// TestProcessDriverIdentityAndRecord: a discovered process module is
// driven by a ProcessDriver whose Key is its executable; a run through it
// records argv, the request file and what came back.
func TestProcessDriverIdentityAndRecord(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("good", "good")
	m := f.load("good")
	pd, ok := m.Driver.(*ProcessDriver)
	if !ok || m.Key != m.Exe || pd.Exe != m.Exe || pd.Uncached {
		t.Fatalf("driver %#v, key %q, exe %q", m.Driver, m.Key, m.Exe)
	}
	p, err := f.host.Plan(m, "t.echo", json.RawMessage(`{"name":"ada"}`))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var frames []Frame
	res, err := f.host.RunWith(ctxGuard(t), p, RunOptions{Record: func(fr Frame) {
		mu.Lock()
		defer mu.Unlock()
		frames = append(frames, fr)
	}})
	if err != nil || !res.OK() {
		t.Fatalf("run: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	kinds := make([]string, len(frames))
	for i, fr := range frames {
		kinds[i] = string(fr.Direction) + " " + fr.Kind
		if fr.RequestID != p.Request.RequestID {
			t.Errorf("frame %s under %q", kinds[i], fr.RequestID)
		}
	}
	// The process's frames, then the host's phases.
	want := []string{"sent phase", "sent argv", "sent env", "sent dir", "sent request", "received phase", "received phase",
		"received phase", "received stdout", "received stderr", "received exit", "received phase", "received phase"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("frames %v, want %v", kinds, want)
	}
	var argv []string
	if err := json.Unmarshal(frames[1].Data, &argv); err != nil || len(argv) != 5 ||
		!slices.Equal(argv[:4], []string{"module", modproto.OperationInvoke, "t.echo", "--input"}) || !strings.HasSuffix(argv[4], "/request.json") {
		t.Errorf("argv %s (%v)", frames[1].Data, err)
	}
	if !strings.Contains(string(frames[4].Data), p.Request.RequestID) || string(frames[8].Data) != string(res.Stdout) {
		t.Errorf("request %s / stdout %s", frames[4].Data, frames[8].Data)
	}

	// A closed driver takes no more calls; the host says why.
	_ = m.Driver.Close()
	if st := m.Driver.Status(); st.State != LifecycleClosed {
		t.Fatalf("status after close: %+v", st)
	}
	res, err = f.host.Run(ctxGuard(t), p, false, nil)
	if err != nil || res.Code() != modproto.CodeHostSpawnFailed || !strings.Contains(res.Host.Detail, "driver is closed") {
		t.Fatalf("closed: %v %+v", err, res.Host)
	}
}

// TestExamplesAreNeverFingerprinted: the examples' describes are never
// cached, and a hand-built Module without a driver still runs its Exe.
func TestExamplesAreNeverFingerprinted(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := filepath.Join(t.TempDir(), "ex")
	f.writeLauncher(filepath.Join(dir, "ex"), "good", "ex")
	f.host.AddExampleModules(dir)
	mods := f.host.Discover(ctxGuard(t))
	if len(mods) != 1 || mods[0].Origin != OriginExamples || mods[0].Status != StatusReady {
		t.Fatalf("examples: %+v", mods)
	}
	if fp, err := mods[0].Driver.Fingerprint(); fp != "" || err != nil {
		t.Errorf("an example was fingerprinted: %q %v", fp, err)
	}
	if again := f.host.Discover(ctxGuard(t)); again[0].Cached {
		t.Error("an example's describe was cached")
	}

	hand := *mods[0]
	hand.Driver = nil
	p, err := f.host.Plan(&hand, "t.echo", json.RawMessage(`{"name":"ada"}`))
	if err != nil {
		t.Fatal(err)
	}
	if res, err := f.host.Run(ctxGuard(t), p, false, nil); err != nil || !res.OK() {
		t.Fatalf("hand-built module: %v %+v", err, res)
	}
}
