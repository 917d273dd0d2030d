package history

import (
	"testing"
	"time"

	"modbay/modproto"
	"modbay/runner"
)

// TestBesideRecorded: what an MCP reply sent beside its structuredContent
// result is kept in the record and comes back with the result, so a run
// reopened from history shows it too.
func TestBesideRecorded(t *testing.T) {
	beside := `{"content":[{"type":"text","artifact":"content-0"}],"_meta":{"zz":1,"aa":2}}`
	res := &runner.Result{RequestID: "r1", Envelope: &modproto.Envelope{OK: true, Result: []byte(`{"z":1}`)}, Beside: []byte(beside)}
	var rec Record
	apply(&rec, res, time.Unix(1, 0))
	if got := string(rec.Result().Beside); got != beside {
		t.Errorf("beside back as %s, want %s", got, beside)
	}
}
