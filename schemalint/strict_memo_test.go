package schemalint

import (
	"encoding/json"
	"testing"
)

// TestUnsatisfiableMemo: a remembered answer is the answer judged afresh,
// keyed by id and bytes both, and the memo stays within maxMemo.
func TestUnsatisfiableMemo(t *testing.T) {
	refused := json.RawMessage(`{"type":"object","required":["a"],"properties":{},"additionalProperties":false}`)
	fine := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)
	for range 2 {
		for _, tc := range []struct {
			id  string
			raw json.RawMessage
		}{{"r", refused}, {"f", fine}, {"other", refused}} {
			f, ok := Unsatisfiable(tc.id, tc.raw)
			wf, wok := unsatisfiable(tc.id, tc.raw)
			if f != wf || ok != wok {
				t.Fatalf("%s: memo %+v %t, afresh %+v %t", tc.id, f, ok, wf, wok)
			}
		}
	}
	if _, ok := Unsatisfiable("r", refused); !ok {
		t.Fatal("an unsatisfiable schema passes")
	}
	calls := 0
	judge := func(string, json.RawMessage) (Finding, bool) { calls++; return Finding{}, false }
	for i := range maxMemo + 10 {
		memoUnsatisfiable("memo-test", json.RawMessage(fmt1(i)), judge)
	}
	unsatisfiableMemo.Lock()
	n := len(unsatisfiableMemo.m)
	unsatisfiableMemo.Unlock()
	if n > maxMemo || calls != maxMemo+10 {
		t.Fatalf("memo holds %d (max %d), judged %d times", n, maxMemo, calls)
	}
	memoUnsatisfiable("memo-test", json.RawMessage(fmt1(maxMemo+9)), judge)
	if calls != maxMemo+10 {
		t.Fatal("a remembered answer was judged again")
	}
}

// fmt1 is a distinct schema per i.
func fmt1(i int) string {
	b, _ := json.Marshal(map[string]any{"$comment": i})
	return string(b)
}
