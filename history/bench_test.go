package history

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"modbay/config"
	"modbay/runner"
)

// fillHistory writes n records and their index directly (no fsync per
// record: the benchmark measures reading).
func fillHistory(tb testing.TB, n int) *Store {
	s, err := Open(filepath.Join(tb.TempDir(), "history"), config.History{MaxRuns: -1})
	if err != nil {
		tb.Fatal(err)
	}
	idx, err := os.Create(filepath.Join(s.Dir(), indexName))
	if err != nil {
		tb.Fatal(err)
	}
	base := time.Now().Add(-time.Duration(n) * time.Minute)
	mods := []string{"notes", "fetch", "render-farm", "transcode"}
	for i := range n {
		r := sampleRecord(fmt.Sprintf("req_%032x", i), base.Add(time.Duration(i)*time.Minute))
		r.Module = mods[i%len(mods)]
		r.Capability = r.Module + ".run"
		if i%7 == 0 {
			r.Status, r.Code = StatusError, "not_found"
		}
		b, _ := json.Marshal(r)
		if err := os.WriteFile(s.recordPath(r.RunID), b, 0o600); err != nil {
			tb.Fatal(err)
		}
		line := encodeLine(r.summary(int64(len(b))))
		idx.Write(append(line, '\n'))
	}
	idx.Close()
	return s
}

// BenchmarkList10000 lists a history of 10 000 runs, as the history screen
// and `modbay history` do on opening.
func BenchmarkList10000(b *testing.B) {
	s := fillHistory(b, 10000)
	b.ResetTimer()
	for b.Loop() {
		sums, _, err := s.List()
		if err != nil || len(sums) != 10000 {
			b.Fatalf("%d %v", len(sums), err)
		}
	}
}

// BenchmarkRecordRun: what recording costs one run, Begin then Finish, in a
// history of 1 000 runs (the writes, their fsyncs, the index lines and the
// pruning scan): it is on the critical path of every invoke.
func BenchmarkRecordRun(b *testing.B) {
	s := fillHistory(b, 1000)
	b.ResetTimer()
	for b.Loop() {
		p := secretPlan(b)
		run, err := s.Begin(p, BeginOptions{Source: SourceInvoke, Approved: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := run.Finish(&runner.Result{RequestID: p.Request.RequestID, Module: "vault", Capability: "vault.open"}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordRunAtLimit is BenchmarkRecordRun in a history at its
// max_runs (the default thousand): the steady state of a history in use,
// where every run makes one more than the limit.
func BenchmarkRecordRunAtLimit(b *testing.B) {
	s := fillHistory(b, 1000)
	s.limits = config.History{MaxRuns: 1000}
	b.ResetTimer()
	for b.Loop() {
		p := secretPlan(b)
		run, err := s.Begin(p, BeginOptions{Source: SourceInvoke, Approved: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := run.Finish(&runner.Result{RequestID: p.Request.RequestID, Module: "vault", Capability: "vault.open"}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
