package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
	"modbay/schema"
)

// childEnv names the history directory a child process writes into: the
// test binary re-run as a writer that pauses inside a write.
const childEnv = "MODBAY_HISTORY_TEST_CHILD"

// lockChildEnv names the history directory a child process takes run
// req_held's lock in, saying so on stdout and holding it until killed.
const lockChildEnv = "MODBAY_HISTORY_TEST_LOCK_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(child(dir))
	}
	if dir := os.Getenv(lockChildEnv); dir != "" {
		s, err := Open(dir, config.History{})
		if err == nil {
			_, err = s.LockRun("req_held")
		}
		fmt.Println("locked", err)
		select {} // until killed
	}
	os.Exit(m.Run())
}

// child writes one record and pauses half-way through it (testHookMidWrite),
// saying so on stdout; the parent kills it there.
func child(dir string) int {
	s, err := Open(dir, config.History{})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	testHookMidWrite = func(path string) {
		fmt.Println("paused", filepath.Base(path))
		select {} // until killed
	}
	rec := sampleRecord("req_killed", time.Now())
	rec.StderrTail = strings.Repeat("x", 64<<10) // a write of some size
	if err := s.Put(rec); err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("not paused")
	return 1
}

func sampleRecord(id string, t time.Time) *Record {
	return &Record{RunID: id, Module: "notes", Capability: "notes.report", Source: SourceInvoke,
		Status: StatusOK, Started: t, Finished: t.Add(time.Second), DurationMS: 1000,
		Input: json.RawMessage(`{"pattern":"*.md"}`), InputRecorded: true}
}

func openTest(t *testing.T, limits config.History) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "history"), limits)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPutGetListPrivate(t *testing.T) {
	s := openTest(t, config.History{})
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 3 {
		if err := s.Put(sampleRecord(fmt.Sprintf("req_%d", i), base.Add(time.Duration(i)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	sums, warns, err := s.List()
	if err != nil || len(warns) > 0 {
		t.Fatalf("List: %v %q", err, warns)
	}
	if len(sums) != 3 || sums[0].RunID != "req_2" || sums[2].RunID != "req_0" {
		t.Fatalf("not newest first: %+v", sums)
	}
	rec, err := s.Get("req_1")
	if err != nil || rec.Module != "notes" || string(rec.Input) != `{"pattern":"*.md"}` || rec.Version != RecordVersion {
		t.Fatalf("Get: %v %+v", err, rec)
	}
	err = filepath.Walk(s.Dir(), func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("req_nope"); err == nil {
		t.Error("a missing run was found")
	}
	if _, err := s.Get("../etc/passwd"); err == nil {
		t.Error("a path was taken for a run id")
	}
}

// TestKillDuringWrite kills a process paused inside a record's write:
// the earlier records and the index read as before, the half-written
// record is nowhere, and the next write goes through.
func TestKillDuringWrite(t *testing.T) {
	s := openTest(t, config.History{})
	base := time.Now().Add(-time.Hour)
	for i := range 3 {
		if err := s.Put(sampleRecord(fmt.Sprintf("req_%d", i), base.Add(time.Duration(i)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+s.Dir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "paused req_killed.json") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child did not pause inside the write: %q %v", line, err)
	}
	// The half-written temporary file is there now: the kill lands inside
	// the write.
	tmps, _ := filepath.Glob(filepath.Join(s.Dir(), runsDir, tmpPrefix+"*"))
	if len(tmps) != 1 {
		t.Fatalf("temporary files during the write: %q", tmps)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	sums, warns, err := s.List()
	if err != nil || len(warns) > 0 || len(sums) != 3 {
		t.Fatalf("after the kill: %v %q %+v", err, warns, sums)
	}
	for _, sum := range sums {
		if _, err := s.Get(sum.RunID); err != nil {
			t.Errorf("%s: %v", sum.RunID, err)
		}
	}
	if _, err := s.Get("req_killed"); err == nil {
		t.Error("the killed write left a readable record")
	}
	// The writer's lock died with it: the next write does not wait.
	done := make(chan error, 1)
	go func() { done <- s.Put(sampleRecord("req_after", time.Now())) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write lock outlived the killed process")
	}
}

// TestDamagedSkipped: a record that cannot be read and a torn index line
// are skipped with a warning; the rest lists.
func TestDamagedSkipped(t *testing.T) {
	s := openTest(t, config.History{})
	if err := s.Put(sampleRecord("req_good", time.Now())); err != nil {
		t.Fatal(err)
	}
	// A record the index does not know, cut short.
	if err := os.WriteFile(s.recordPath("req_cut"), []byte(`{"run_id":"req_cut","mod`), 0o600); err != nil {
		t.Fatal(err)
	}
	// A torn index line (a write killed half-way), then a good write.
	f, _ := os.OpenFile(filepath.Join(s.Dir(), indexName), os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString("req_torn\tno")
	f.Close()
	if err := s.Put(sampleRecord("req_next", time.Now().Add(time.Second))); err != nil {
		t.Fatal(err)
	}
	sums, warns, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 || sums[0].RunID != "req_next" {
		t.Errorf("listed %+v", sums)
	}
	joined := strings.Join(warns, "\n")
	if !strings.Contains(joined, "req_cut is damaged") || !strings.Contains(joined, "1 damaged history index line") {
		t.Errorf("warnings %q", warns)
	}
	var de *DamagedError
	if _, err := s.Get("req_cut"); err == nil || !asDamaged(err, &de) {
		t.Errorf("Get of a damaged record: %v", err)
	}
}

// An empty record is a running record whose unsynced bytes a power loss
// dropped (putRunning): no record and no warning, not a damaged one.
func TestEmptyRecordIsForgotten(t *testing.T) {
	s := openTest(t, config.History{})
	if err := s.Put(sampleRecord("req_good", time.Now())); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.recordPath("req_empty"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sums, warns, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 1 || sums[0].RunID != "req_good" || len(warns) != 0 {
		t.Errorf("listed %+v, warnings %q", sums, warns)
	}
	if _, err := s.Get("req_empty"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of an empty record: %v, want ErrNotFound", err)
	}
}

// A zero-filled record is a final record renamed before its blocks
// reached the disk (writeFinal: a power loss before the background
// fsync): forgotten like an empty one.
func TestZeroFilledRecordIsForgotten(t *testing.T) {
	s := openTest(t, config.History{})
	if err := os.WriteFile(s.recordPath("req_zero"), make([]byte, 300), 0o600); err != nil {
		t.Fatal(err)
	}
	sums, warns, err := s.List()
	if err != nil || len(sums) != 0 || len(warns) != 0 {
		t.Errorf("listed %+v, warnings %q, %v", sums, warns, err)
	}
	if _, err := s.Get("req_zero"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a zero-filled record: %v, want ErrNotFound", err)
	}
}

// TestFinishDoesNotWaitForTheFsync: a run's final record is in place (and
// readable) when Finish returns, while its fsync is still held up; Flush
// waits for that fsync.
func TestFinishDoesNotWaitForTheFsync(t *testing.T) {
	s := openTest(t, config.History{})
	p := secretPlan(t)
	run, err := s.Begin(p, BeginOptions{Source: SourceInvoke, Approved: true})
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}, 64), make(chan struct{})
	orig := fsync
	fsync = func(f *os.File) error {
		entered <- struct{}{}
		<-release
		return orig(f)
	}
	defer func() { fsync = orig }()
	finished := make(chan error, 1)
	go func() {
		_, err := run.Finish(&runner.Result{RequestID: p.Request.RequestID, Module: "vault", Capability: "vault.open",
			Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{}`)}}, nil)
		finished <- err
	}()
	select {
	case err := <-finished:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second): // a deadlock guard, not a speed bound
		close(release)
		t.Fatal("Finish waited for the record's fsync")
	}
	if rec, err := s.Get(p.Request.RequestID); err != nil || rec.Status != StatusOK {
		t.Fatalf("after Finish: %+v, %v", rec, err)
	}
	<-entered // the worker holds the fsync now
	flushed := make(chan struct{})
	go func() { Flush(); close(flushed) }()
	select {
	case <-flushed:
		t.Fatal("Flush returned before the record was synced")
	default:
	}
	close(release)
	<-flushed
}

// TestRunLocks: a run's lock makes no file of its own; it is seen by
// another process and by another lock of this one, goes when its holder
// dies, and an earlier version's held lock file still counts.
func TestRunLocks(t *testing.T) {
	s := openTest(t, config.History{})
	l, err := s.LockRun("req_a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.LockRun("req_a"); !errors.Is(err, ErrBusy) {
		t.Errorf("second lock of one run in one process: %v, want ErrBusy", err)
	}
	if !s.Held("req_a") || s.Held("req_b") {
		t.Errorf("Held: req_a %v req_b %v", s.Held("req_a"), s.Held("req_b"))
	}
	ents, _ := os.ReadDir(filepath.Join(s.Dir(), locksDir))
	if len(ents) != 1 || ents[0].Name() != runsLockName {
		t.Errorf("locks directory holds %v, want only %s", ents, runsLockName)
	}
	l.Release()
	l.Release()
	if s.Held("req_a") {
		t.Error("held after Release")
	}

	// Another process's lock, gone with the process.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+s.Dir())
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "locked <nil>\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child: %q", line)
	}
	if !s.Held("req_held") {
		t.Error("another process's lock not seen by Held")
	}
	if _, err := s.LockRun("req_held"); !errors.Is(err, ErrBusy) {
		t.Errorf("lock held by another process: %v, want ErrBusy", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if s.Held("req_held") {
		t.Error("a dead process's lock still held")
	}

	// An earlier version's lock file, flocked.
	old, err := os.OpenFile(filepath.Join(s.Dir(), locksDir, "req_old.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := syscall.Flock(int(old.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if !s.Held("req_old") {
		t.Error("an earlier version's held lock file not seen")
	}
	if _, err := s.LockRun("req_old"); !errors.Is(err, ErrBusy) {
		t.Errorf("lock over an earlier version's held file: %v, want ErrBusy", err)
	}
	if l, err := s.LockRun("req_old2"); err != nil {
		t.Errorf("an unrelated run: %v", err)
	} else {
		l.Release()
	}
}

func asDamaged(err error, de **DamagedError) bool {
	d, ok := err.(*DamagedError)
	*de = d
	return ok
}

func TestPruneKeepsPinnedAndJobs(t *testing.T) {
	s := openTest(t, config.History{MaxRuns: 3})
	base := time.Now().Add(-time.Hour)
	put := func(id string, i int, change func(*Record)) {
		r := sampleRecord(id, base.Add(time.Duration(i)*time.Minute))
		if change != nil {
			change(r)
		}
		if err := s.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	put("req_pinned", 0, func(r *Record) { r.Pinned = true })
	put("req_detached", 1, func(r *Record) { r.Status = StatusDetached; r.Job = &Job{ID: "j", State: "running"} })
	put("req_old", 2, nil)
	put("req_mid", 3, nil)
	put("req_new", 4, nil)
	put("req_newest", 5, nil)
	sums, _, _ := s.List()
	var ids []string
	for _, x := range sums {
		ids = append(ids, x.RunID)
	}
	// Pinned and detached runs count but are never pruned: the oldest
	// others go until three remain, or none is left to prune.
	want := "req_newest req_detached req_pinned"
	if strings.Join(ids, " ") != want {
		t.Errorf("kept %q, want %q", strings.Join(ids, " "), want)
	}
	if err := s.Pin("req_newest", true); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Get("req_newest"); !r.Pinned {
		t.Error("pin not recorded")
	}

	sb := openTest(t, config.History{MaxBytes: 1500})
	for i := range 5 {
		r := sampleRecord(fmt.Sprintf("req_b%d", i), base.Add(time.Duration(i)*time.Minute))
		if err := sb.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	sums, _, _ = sb.List()
	var total int64
	for _, x := range sums {
		total += x.Bytes
	}
	if total > 1500 || len(sums) == 0 || sums[0].RunID != "req_b4" {
		t.Errorf("by bytes: %d bytes in %d runs (%+v)", total, len(sums), sums)
	}
}

// TestIndexCompacts: many writes of few runs do not grow the index
// without bound.
func TestIndexCompacts(t *testing.T) {
	defer func(n int) { compactSlack = n }(compactSlack)
	compactSlack = 8
	s := openTest(t, config.History{})
	r := sampleRecord("req_busy", time.Now())
	for i := range 2*compactSlack + 10 {
		r.DurationMS = int64(i)
		if err := s.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	_, lines, _ := s.readIndex()
	if lines > compactSlack+3 {
		t.Errorf("index holds %d lines for one run", lines)
	}
	sums, _, _ := s.List()
	if len(sums) != 1 || sums[0].DurationMS != int64(2*compactSlack+9) {
		t.Errorf("summary %+v", sums)
	}
}

// secretPlan is a plan whose request schema marks "token" writeOnly and
// "pin" format: password.
func secretPlan(t testing.TB) *runner.Plan {
	t.Helper()
	d := &modproto.Descriptor{Module: "vault", Capabilities: []modproto.Capability{{ID: "vault.open", RequestSchema: "vault.open/v1",
		LongRunning: true, PollCapability: "vault.poll", CancelCapability: "vault.cancel"}},
		RequestSchemas: map[string]json.RawMessage{"vault.open/v1": json.RawMessage(`{"type":"object","properties":{
			"user":{"type":"string"},"token":{"type":"string","writeOnly":true},"pin":{"type":"string","format":"password"}}}`)}}
	return &runner.Plan{Module: &runner.Module{ID: "vault", Descriptor: d}, Capability: d.Capabilities[0],
		Request: modproto.Request{RequestID: modproto.NewRequestID(), Capability: "vault.open",
			Input:  json.RawMessage(`{"user":"ann","token":"s3cr3t-token","pin":"4242"}`),
			Roots:  map[string]modproto.Root{"workspace": {Path: "/w", Mode: modproto.RootReadWrite}},
			Grants: modproto.Grants{Network: []string{"api.test"}}, DeadlineMS: 5000}}
}

// TestSecretsNeverReachTheDisk: writeOnly and format: password values are
// in no file under the history, whatever is written.
func TestSecretsNeverReachTheDisk(t *testing.T) {
	s := openTest(t, config.History{})
	p := secretPlan(t)
	run, err := s.Begin(p, BeginOptions{Source: SourceCockpit, Approved: true})
	if err != nil {
		t.Fatal(err)
	}
	run.Event(runner.Event{RequestID: p.Request.RequestID, Job: &runner.JobStatus{ID: "job_1", State: "running"}})
	rec, err := run.Finish(&runner.Result{RequestID: p.Request.RequestID, Module: "vault", Capability: "vault.open",
		Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{}`)}, Job: &runner.JobStatus{ID: "job_1", State: "succeeded", Polls: 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != StatusOK || rec.Job == nil || rec.Job.CancelCapability != "vault.cancel" || rec.Job.Polls != 2 {
		t.Errorf("record %+v job %+v", rec, rec.Job)
	}
	got, _ := s.Get(p.Request.RequestID)
	if string(got.Input) != `{"user":"ann","token":"••••••","pin":"••••••"}` || strings.Join(got.Redacted, ",") != "/pin,/token" {
		t.Errorf("input %s redacted %q", got.Input, got.Redacted)
	}
	if got.Roots["workspace"].Path != "/w" || len(got.Grants.Network) != 1 {
		t.Errorf("request not recorded: %+v", got)
	}
	filepath.Walk(s.Dir(), func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		for _, secret := range []string{"s3cr3t-token", "4242"} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s holds the secret %q", path, secret)
			}
		}
		return nil
	})

	off := openTest(t, config.History{RecordInputs: new(bool)})
	run, err = off.Begin(secretPlan(t), BeginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec, _ = run.Finish(nil, fmt.Errorf("approval required"))
	if rec.InputRecorded || rec.Input != nil || rec.Status != StatusFailed {
		t.Errorf("record_inputs false: %+v", rec)
	}
}

// TestOnePollerPerJob: a run's lock is held by one process at a time;
// a job left detached can be resumed once, and a run whose process died
// reads as interrupted.
func TestOnePollerPerJob(t *testing.T) {
	s := openTest(t, config.History{})
	p := secretPlan(t)
	id := p.Request.RequestID
	run, err := s.Begin(p, BeginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.LockRun(id); err == nil {
		t.Fatal("a second lock on a running run")
	}
	if !s.Held(id) {
		t.Error("the run's lock is not seen held")
	}
	run.Event(runner.Event{Job: &runner.JobStatus{ID: "job_9", State: "running", Polls: 1}})
	if _, err := s.Resume(id); err == nil {
		t.Error("resumed a job another poller holds")
	}
	rec, _ := run.Finish(&runner.Result{Job: &runner.JobStatus{ID: "job_9", State: "running", Polls: 3},
		Host: &runner.HostError{Code: modproto.CodeCancelled, Detail: "stopped"}}, nil)
	if rec.Status != StatusDetached || !rec.Resumable() {
		t.Fatalf("stopped job: %s resumable %v", rec.Status, rec.Resumable())
	}
	r2, err := s.Resume(id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resume(id); err == nil {
		t.Error("a second poller resumed the same job")
	}
	if got, _ := s.Get(id); got.Status != StatusRunning {
		t.Errorf("resumed job reads %s", got.Status)
	}
	r2.lock.Release() // as a killed poller's lock goes
	if got, _ := s.Get(id); got.Status != StatusInterrupted || !got.Resumable() {
		t.Errorf("abandoned job reads %s", got.Status)
	}
	sums, _, _ := s.List()
	if len(sums) != 1 || sums[0].Status != StatusInterrupted || sums[0].JobID != "job_9" {
		t.Errorf("listed %+v", sums)
	}
}

func TestExport(t *testing.T) {
	home := t.TempDir()
	store := filepath.Join(home, "artifacts")
	os.MkdirAll(filepath.Join(store, "ab"), 0o700)
	staged := filepath.Join(store, "ab", "report.md")
	os.WriteFile(staged, []byte("# report\n"), 0o400)
	outside := filepath.Join(home, "secret.txt")
	os.WriteFile(outside, []byte("no"), 0o600)
	rec := sampleRecord("req_exp", time.Now())
	rec.Envelope = json.RawMessage(`{"ok":true}`)
	rec.StderrTail = "warn: x\n"
	rec.Artifacts = []Artifact{
		{Artifact: modproto.Artifact{ID: "r", Path: "out/report.md"}, Staged: staged},
		{Artifact: modproto.Artifact{ID: "s", Path: "../../etc/../report.md"}, Staged: staged},
		{Artifact: modproto.Artifact{ID: "x", Path: "x.txt"}, Staged: outside},
	}
	dir := filepath.Join(t.TempDir(), "bug")
	ex, err := Export(rec, dir, store)
	if err != nil {
		t.Fatal(err)
	}
	want := "record.json request.json envelope.json stderr.txt artifacts/report.md artifacts/s-report.md"
	if strings.Join(ex.Files, " ") != want {
		t.Errorf("files %q", ex.Files)
	}
	if len(ex.Missing) != 1 || !strings.Contains(ex.Missing[0], "outside the artifact store") {
		t.Errorf("missing %q", ex.Missing)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "request.json"))
	var req map[string]any
	if json.Unmarshal(b, &req) != nil || req["request_id"] != "req_exp" || req["input"] == nil {
		t.Errorf("request.json: %s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "artifacts", "report.md")); string(b) != "# report\n" {
		t.Errorf("artifact copy %q", b)
	}
}

func TestWithoutRedacted(t *testing.T) {
	in := json.RawMessage(`{"user":"ann","token":"[redacted]","a/b":{"k":"[redacted]","n":1},"l":["[redacted]",2]}`)
	got := WithoutRedacted(in, []string{"/token", "/a~1b/k", "/l/0"})
	if string(got) != `{"a/b":{"n":1},"l":[null,2],"user":"ann"}` {
		t.Errorf("got %s", got)
	}
	if string(WithoutRedacted(in, nil)) != string(in) {
		t.Error("nothing to remove changed the input")
	}
}

func TestCommandLine(t *testing.T) {
	rec := &Record{Module: "notes", Capability: "notes.report", InputRecorded: true,
		Input:   json.RawMessage(`{"title":"it's","token":"` + schema.Mask + `"}`),
		Handoff: []Handed{{Root: "inbox", Rel: "r.md", Origin: "req_1:report"}}}
	line, ok := rec.CommandLine()
	want := `modbay invoke notes notes.report --input '{"title":"it'\''s","token":"` + schema.Mask + `"}' --artifact inbox=req_1:report`
	if !ok || line != want {
		t.Fatalf("got  %s\nwant %s", line, want)
	}
	rec.InputRecorded = false
	if _, ok := rec.CommandLine(); ok {
		t.Fatal("a run whose input was not recorded has no command line")
	}
}

// TestBeginWritesFinishPrunes: Begin's record (putRunning) is readable at
// once and prunes nothing; Finish's durable write prunes beyond max_runs.
func TestBeginWritesFinishPrunes(t *testing.T) {
	s := openTest(t, config.History{MaxRuns: 1})
	if err := s.Put(sampleRecord("req_old", time.Now().Add(-time.Hour))); err != nil {
		t.Fatal(err)
	}
	p := secretPlan(t)
	run, err := s.Begin(p, BeginOptions{Source: SourceInvoke, Approved: true})
	if err != nil {
		t.Fatal(err)
	}
	ids := func() string {
		sums, warns, err := s.List()
		if err != nil || len(warns) > 0 {
			t.Fatalf("list: %v %v", err, warns)
		}
		var out []string
		for _, x := range sums {
			out = append(out, x.RunID+":"+string(x.Status))
		}
		return strings.Join(out, " ")
	}
	id := p.Request.RequestID
	if got, want := ids(), id+":"+string(StatusRunning)+" req_old:"+string(StatusOK); got != want {
		t.Errorf("after Begin: %q, want %q", got, want)
	}
	if _, err := run.Finish(&runner.Result{RequestID: id, Module: "vault", Capability: "vault.open",
		Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{}`)}}, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := ids(), id+":"+string(StatusOK); got != want {
		t.Errorf("after Finish: %q, want %q", got, want)
	}
}

// TestFinalIndexLineLost: Finish leaves its index line to the page cache
// (writeFinal); a power loss that drops it leaves Begin's "running" line,
// and the history reads the record instead, through listing and
// maintenance alike.
func TestFinalIndexLineLost(t *testing.T) {
	s := openTest(t, config.History{})
	p := secretPlan(t)
	run, err := s.Begin(p, BeginOptions{Source: SourceInvoke, Approved: true})
	if err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(s.Dir(), indexName)
	fi, err := os.Stat(idx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Finish(&runner.Result{RequestID: p.Request.RequestID, Module: "vault", Capability: "vault.open",
		Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{}`)}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(idx, fi.Size()); err != nil { // Finish's line lost
		t.Fatal(err)
	}
	check := func(when string) {
		sums, warns, err := s.List()
		if err != nil || len(warns) > 0 || len(sums) != 1 || sums[0].Status != StatusOK || sums[0].Bytes == 0 {
			t.Fatalf("%s: %+v %v %v", when, sums, warns, err)
		}
	}
	check("after the loss")
	s.mustMaintain(t)
	check("after maintenance")
	b, _ := os.ReadFile(idx)
	if n := strings.Count(string(b), "\n"); n != 1 || !strings.Contains(string(b), "\t"+string(StatusOK)+"\t") {
		t.Errorf("compacted index does not hold the record's summary: %q", b)
	}
}

func (s *Store) mustMaintain(t *testing.T) {
	t.Helper()
	unlock, err := s.lockWrite()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := s.maintain(); err != nil {
		t.Fatal(err)
	}
}

// TestPruneSlack: the history grows at most pruneSlack beyond max_runs
// before it is pruned back to max_runs; a record the index does not know
// (a writer killed before its line) is counted once the record of the
// last maintenance is gone, and so is every run when it is damaged.
func TestPruneSlack(t *testing.T) {
	const limit = 64 // slack 2
	s := openTest(t, config.History{MaxRuns: limit})
	base := time.Now().Add(-time.Hour)
	count := func() int {
		ids, _, err := s.recordIDs()
		if err != nil {
			t.Fatal(err)
		}
		return len(ids)
	}
	sawPrune := false
	for i := range limit + 10 {
		if err := s.Put(sampleRecord(fmt.Sprintf("req_s%03d", i), base.Add(time.Duration(i)*time.Second))); err != nil {
			t.Fatal(err)
		}
		n := count()
		if n > limit+int(pruneSlack(limit)) {
			t.Fatalf("after %d puts %d runs are kept, more than %d + slack", i+1, n, limit)
		}
		if i >= limit && n == limit {
			sawPrune = true
		}
	}
	if !sawPrune {
		t.Error("never pruned back to the limit")
	}
	for _, damage := range []func(){
		func() { os.Remove(filepath.Join(s.Dir(), maintName)) },
		func() { os.WriteFile(filepath.Join(s.Dir(), maintName), []byte("garbage"), 0o600) },
	} {
		for i := range int(pruneSlack(limit)) + 1 { // records without index lines
			r := sampleRecord(fmt.Sprintf("req_k%03d_%d", i, count()), time.Now())
			b, _ := json.Marshal(r)
			if err := os.WriteFile(s.recordPath(r.RunID), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		damage()
		if err := s.Put(sampleRecord(fmt.Sprintf("req_z%d", count()), time.Now())); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != limit {
			t.Errorf("%d runs kept after a full maintenance, want %d", n, limit)
		}
	}
}

// TestSentUncheckedIsRecorded: an input the person sent anyway, not
// checked against the request schema (runner.Plan.Unchecked), is recorded
// as such, so history show and rerun can say why its repeat line is
// refused.
func TestSentUncheckedIsRecorded(t *testing.T) {
	s := openTest(t, config.History{})
	for _, unchecked := range []bool{false, true} {
		p := secretPlan(t)
		p.Unchecked = unchecked
		if _, err := s.Begin(p, BeginOptions{Source: SourceCockpit, Approved: true}); err != nil {
			t.Fatal(err)
		}
		rec, err := s.Get(p.Request.RequestID)
		if err != nil {
			t.Fatal(err)
		}
		if rec.SentUnchecked != unchecked {
			t.Errorf("plan unchecked %v, record says %v", unchecked, rec.SentUnchecked)
		}
	}
}

// TestServerRootsRecorded: an MCP server's run records the folders the
// server was started with, not the request roots it never received.
func TestServerRootsRecorded(t *testing.T) {
	s := openTest(t, config.History{})
	p := secretPlan(t)
	p.ServerRoots = map[string]modproto.Root{"server": {Path: "/srv/fs", Mode: "ro"}}
	run, err := s.Begin(p, BeginOptions{Approved: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Finish(&runner.Result{RequestID: p.Request.RequestID, Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{}`)}}, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Get(p.Request.RequestID)
	if len(got.Roots) != 1 || got.Roots["server"].Path != "/srv/fs" {
		t.Errorf("recorded roots %+v, want the server's", got.Roots)
	}
}

// TestResumedJobTakesTheRecordsTime: a job taken over after a restart
// ends with the job's time (from the record's start), in the record and
// in the result the poller shows, not the poller's own watching time.
func TestResumedJobTakesTheRecordsTime(t *testing.T) {
	s := openTest(t, config.History{})
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := t0
	s.now = func() time.Time { return now }
	p := secretPlan(t)
	id := p.Request.RequestID
	run, err := s.Begin(p, BeginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now = t0.Add(2 * time.Second)
	run.Finish(&runner.Result{Started: t0, Job: &runner.JobStatus{ID: "job_9", State: "running"},
		Host: &runner.HostError{Code: modproto.CodeCancelled, Detail: "stopped"}}, nil)
	r2, err := s.Resume(id)
	if err != nil {
		t.Fatal(err)
	}
	now = t0.Add(18 * time.Second)
	res := &runner.Result{Started: t0.Add(11 * time.Second), Duration: 7 * time.Second,
		Job: &runner.JobStatus{ID: "job_9", State: "succeeded"}, Envelope: &modproto.Envelope{OK: true}}
	rec, _ := r2.Finish(res, nil)
	if rec.DurationMS != 18000 || res.Duration != 18*time.Second || !res.Started.Equal(t0) {
		t.Errorf("record %d ms, result %s from %s; want the job's 18 s from its start", rec.DurationMS, res.Duration, res.Started)
	}
}

// TestFinishCancelRewordsTheRecord: after its job was cancelled through
// cancel_capability, a run that had stopped following no longer says the
// job goes on, and ends cancelled with the job's time.
func TestFinishCancelRewordsTheRecord(t *testing.T) {
	s := openTest(t, config.History{})
	p := secretPlan(t)
	run, err := s.Begin(p, BeginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run.Finish(&runner.Result{Job: &runner.JobStatus{ID: "job_9", State: "running"},
		Host: &runner.HostError{Code: modproto.CodeCancelled, Detail: "polling stopped; job job_9 continues in the module"}}, nil)
	cancel := &runner.Plan{Capability: modproto.Capability{ID: "j.cancel"}}
	res := &runner.Result{Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{"state":"cancelled"}`)}}
	out, state, err := s.FinishCancel(p.Request.RequestID, cancel, res)
	if err != nil || !out.OK || state != "cancelled" {
		t.Fatalf("outcome %+v state %q err %v", out, state, err)
	}
	rec, _ := s.Get(p.Request.RequestID)
	if rec.Status != StatusCancelled || rec.Host == nil || strings.Contains(rec.Host.Detail, "continues") || rec.Host.Detail != "job job_9 cancelled through j.cancel (state cancelled)" {
		t.Errorf("after the cancel: status %s verdict %+v", rec.Status, rec.Host)
	}
}

// TestFinishCancelTooLateKeepsTheOutcome: a cancel answered "succeeded"
// came too late. A record already ended ok stays ok with its own verdict,
// the outcome noting it; a detached one ends ok, not cancelled, and no
// longer says the job goes on.
func TestFinishCancelTooLateKeepsTheOutcome(t *testing.T) {
	s := openTest(t, config.History{})
	cancel := &runner.Plan{Capability: modproto.Capability{ID: "j.cancel"}}
	late := &runner.Result{Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{"job":{"job_id":"job_9","state":"succeeded"}}`)}}
	for _, tt := range []struct {
		name string
		res  *runner.Result
	}{
		{"ended ok", &runner.Result{Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{}`)}, Job: &runner.JobStatus{ID: "job_9", State: "succeeded"}}},
		{"detached", &runner.Result{Job: &runner.JobStatus{ID: "job_9", State: "running"},
			Host: &runner.HostError{Code: modproto.CodeCancelled, Detail: "polling stopped; job job_9 continues in the module"}}},
	} {
		p := secretPlan(t)
		run, err := s.Begin(p, BeginOptions{})
		if err != nil {
			t.Fatal(err)
		}
		run.Finish(tt.res, nil)
		out, state, err := s.FinishCancel(p.Request.RequestID, cancel, late)
		if err != nil || !out.OK || state != "succeeded" || out.Detail != "cancel came too late: the job had succeeded" {
			t.Fatalf("%s: outcome %+v state %q err %v", tt.name, out, state, err)
		}
		rec, _ := s.Get(p.Request.RequestID)
		if rec.Status != StatusOK || rec.Host != nil || rec.Job.State != "succeeded" || rec.Cancel == nil || rec.Cancel.Detail != out.Detail {
			t.Errorf("%s: status %s verdict %+v job %+v cancel %+v", tt.name, rec.Status, rec.Host, rec.Job, rec.Cancel)
		}
	}
	// A recorded cancelled outcome stands too: its words are not redone.
	p := secretPlan(t)
	run, _ := s.Begin(p, BeginOptions{})
	run.Finish(&runner.Result{Job: &runner.JobStatus{ID: "job_9", State: "failed"}, Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{}`)}}, nil)
	cancelled := &runner.Result{Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{"state":"cancelled"}`)}}
	_, _, _ = s.FinishCancel(p.Request.RequestID, cancel, cancelled)
	if rec, _ := s.Get(p.Request.RequestID); rec.Status != StatusError || rec.Host != nil || rec.Job.State != "failed" {
		t.Errorf("ended failed, then cancelled: status %s verdict %+v job %+v", rec.Status, rec.Host, rec.Job)
	}
}

// TestFinishCancelRecordsTheLatestProgress: the cancel's answer is the
// job's latest word: its percent and detail replace the last poll's, so a
// status read after the cancel says what the cancel said.
func TestFinishCancelRecordsTheLatestProgress(t *testing.T) {
	s := openTest(t, config.History{})
	p := secretPlan(t)
	run, err := s.Begin(p, BeginOptions{})
	if err != nil {
		t.Fatal(err)
	}
	five := 5.0
	run.Finish(&runner.Result{Job: &runner.JobStatus{ID: "job_9", State: "running", Percent: &five, Detail: "frame 2 of 40"},
		Host: &runner.HostError{Code: modproto.CodeCancelled, Detail: "polling stopped; job job_9 continues in the module"}}, nil)
	cancel := &runner.Plan{Capability: modproto.Capability{ID: "j.cancel"}}
	for _, tt := range []struct {
		answer  string
		percent float64
		detail  string
	}{
		{`{"job_id":"job_9","state":"running","percent":26,"detail":"stopping at frame 10 of 40"}`, 26, "stopping at frame 10 of 40"},
		{`{"job":{"job_id":"job_9","state":"cancelled","percent":27}}`, 27, "stopping at frame 10 of 40"},
	} {
		res := &runner.Result{Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(tt.answer)}}
		if _, _, err := s.FinishCancel(p.Request.RequestID, cancel, res); err != nil {
			t.Fatal(err)
		}
		rec, _ := s.Get(p.Request.RequestID)
		if rec.Job.Percent == nil || *rec.Job.Percent != tt.percent || rec.Job.Detail != tt.detail {
			t.Errorf("after %s: job %+v", tt.answer, rec.Job)
		}
	}
}

// TestDeniedIsItsOwnStatus: a denied call, the cockpit's or an agent's
// (through the gateway's "not run: denied through …"), is denied, not
// failed; another not-run verdict stays failed.
func TestDeniedIsItsOwnStatus(t *testing.T) {
	s := openTest(t, config.History{})
	p := secretPlan(t)
	if err := s.RecordDenied(p, BeginOptions{}); err != nil {
		t.Fatal(err)
	}
	rec, err := s.Get(p.Request.RequestID)
	if err != nil || rec.Status != StatusDenied {
		t.Fatalf("cockpit denial: %v %v", rec.Status, err)
	}
	for why, want := range map[string]Status{"not run: denied through elicitation": StatusDenied, "approval required": StatusFailed} {
		run, err := s.Begin(secretPlan(t), BeginOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rec, _ := run.Finish(nil, errors.New(why)); rec.Status != want {
			t.Errorf("%q: status %s, want %s", why, rec.Status, want)
		}
	}
}

// TestApprovedOnlyWhenAsked: a record says approved only when the plan
// asked for approval and it was given; a plan that asked nothing is never
// recorded as approved, whatever the caller passed.
func TestApprovedOnlyWhenAsked(t *testing.T) {
	s := openTest(t, config.History{})
	for _, tt := range []struct {
		asked    []string
		approved bool
		want     bool
	}{
		{[]string{"network"}, true, true},
		{[]string{"network"}, false, false},
		{nil, true, false},
		{nil, false, false},
	} {
		p := secretPlan(t)
		p.Approval = tt.asked
		run, err := s.Begin(p, BeginOptions{Source: SourceCockpit, Approved: tt.approved})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := run.Finish(&runner.Result{RequestID: p.Request.RequestID, Envelope: &modproto.Envelope{OK: true, Result: json.RawMessage(`{}`)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Approved != tt.want {
			t.Errorf("asked %v, passed approved %v: recorded approved %v, want %v", tt.asked, tt.approved, rec.Approved, tt.want)
		}
	}
}

// TestIndexKeepsTheErrorMessage: a failed run's index line keeps the
// start of its error message (the host's detail, else the module's
// message), and a line written before it was kept still reads.
func TestIndexKeepsTheErrorMessage(t *testing.T) {
	r := &Record{RunID: "req_00000000000000000000000000000021", Module: "fetch", Capability: "fetch.url", Status: StatusError,
		Envelope: json.RawMessage(`{"ok":false,"error":{"code":"provider_failure","message":"HTTP 404 for\tpage.md\n` + strings.Repeat("é", 200) + `"}}`)}
	sum := r.summary(10)
	if !strings.HasPrefix(sum.Error, "HTTP 404 for\tpage.md\n") || len(sum.Error) > errorDigestBytes || !utf8.ValidString(sum.Error) {
		t.Fatalf("error %q", sum.Error)
	}
	back, err := decodeLine(string(encodeLine(sum)))
	if err != nil || back.Error != sum.Error {
		t.Fatalf("round trip: %q %v", back.Error, err)
	}
	r.Host = &Verdict{Code: "host.x", Detail: "File not found: a.md"}
	if got := r.summary(10).Error; got != "File not found: a.md" {
		t.Fatalf("host detail: %q", got)
	}
	line := string(encodeLine(sum))
	old := line[:strings.LastIndexByte(line, '\t')]
	got, err := decodeLine(old)
	if err != nil || got.RunID != sum.RunID || got.Error != "" {
		t.Fatalf("an older line: %+v %v", got, err)
	}
}
