package mcp

import (
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"modbay/runner"
)

// TestListChangedBounded: a list_changed before the session's first
// answer of that list is part of the answer; after it, the first one
// makes the list stale and a flood of more is the same news until the
// list is answered again; a burst of resource updates is counted whole
// and announced once.
func TestListChangedBounded(t *testing.T) {
	d := &Driver{id: "x"}
	var tools, updates atomic.Int32
	d.Watch(func(c runner.Change) {
		switch c.Kind {
		case runner.ChangeTools:
			tools.Add(1)
		case runner.ChangeResource:
			updates.Add(1)
		}
	})
	var lt listTracker
	changed := &jsonrpc.Request{Method: "notifications/tools/list_changed"}
	list := func(n int64) {
		id, _ := jsonrpc.MakeID(float64(n))
		lt.sent(&jsonrpc.Request{ID: id, Method: "tools/list"})
		lt.received(d, changed) // while outstanding: part of the answer
		lt.received(d, &jsonrpc.Response{ID: id, Result: json.RawMessage(`{"tools":[]}`)})
	}
	lt.received(d, changed) // before any answer
	list(1)
	if n := tools.Load(); n != 0 {
		t.Fatalf("%d changes announced before or during the list", n)
	}
	for range 1000 {
		lt.received(d, changed)
	}
	if n := tools.Load(); n != 1 {
		t.Errorf("a flood of list_changed announced %d times, want once", n)
	}
	list(2)
	lt.received(d, changed)
	if n := tools.Load(); n != 2 {
		t.Errorf("a change after the list was answered again: %d announcements, want 2", n)
	}
	upd := &jsonrpc.Request{Method: "notifications/resources/updated", Params: json.RawMessage(`{"uri":"test://a"}`)}
	for range 500 {
		lt.received(d, upd)
	}
	d.surf.mu.Lock()
	count := d.surf.updates["test://a"].Count
	d.surf.mu.Unlock()
	if count != 500 || updates.Load() != 1 {
		t.Errorf("a burst of 500 updates: counted %d, announced %d", count, updates.Load())
	}
}
