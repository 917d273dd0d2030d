package mcp

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"modbay/runner"
)

// listKinds maps the list requests to the Change kind their
// list_changed names.
var listKinds = map[string]string{
	"tools/list": runner.ChangeTools, "prompts/list": runner.ChangePrompts,
	"resources/list": runner.ChangeResources, "resources/templates/list": runner.ChangeResources,
}

// changedKinds maps the list_changed notifications to their kind.
var changedKinds = map[string]string{
	"notifications/tools/list_changed":     runner.ChangeTools,
	"notifications/prompts/list_changed":   runner.ChangePrompts,
	"notifications/resources/list_changed": runner.ChangeResources,
}

// listTracker follows one connection's list requests, so a list_changed
// the server sends before it answers the session's first list of that
// kind, or while one is being answered, is taken as part of that answer:
// a server that adds tools as it starts (server-everything registers
// some once initialized) would otherwise make every cached list stale.
// Messages are seen in wire order: sent ones in Write, received ones on
// the reader.
type listTracker struct {
	mu sync.Mutex
	// pending maps a list request's id to its kind, until answered.
	pending map[any]string
	// answered holds the kinds this connection has had a list answered;
	// stale those whose list_changed was acted on since (another one is
	// the same news until the list is answered again).
	answered, stale map[string]bool
}

// sent notes a list request going out.
func (t *listTracker) sent(m jsonrpc.Message) {
	r, ok := m.(*jsonrpc.Request)
	if !ok || !r.ID.IsValid() || listKinds[r.Method] == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending == nil {
		t.pending = map[any]string{}
	}
	if len(t.pending) < maxPendingLists {
		t.pending[r.ID.Raw()] = listKinds[r.Method]
	}
}

// maxPendingLists bounds the list requests followed at once.
const maxPendingLists = 64

// received handles a message from the server: an answer to a list, or a
// list_changed (d.listChanged unless covered) or resources/updated.
func (t *listTracker) received(d *Driver, m jsonrpc.Message) {
	switch r := m.(type) {
	case *jsonrpc.Response:
		if !r.ID.IsValid() {
			return
		}
		t.mu.Lock()
		if kind, ok := t.pending[r.ID.Raw()]; ok {
			delete(t.pending, r.ID.Raw())
			if t.answered == nil {
				t.answered, t.stale = map[string]bool{}, map[string]bool{}
			}
			t.answered[kind] = true
			delete(t.stale, kind)
		}
		t.mu.Unlock()
	case *jsonrpc.Request:
		if r.ID.IsValid() {
			return
		}
		if r.Method == "notifications/resources/updated" {
			var p struct {
				URI string `json:"uri"`
			}
			if json.Unmarshal(r.Params, &p) == nil && p.URI != "" {
				d.resourceUpdated(p.URI)
			}
			return
		}
		kind := changedKinds[r.Method]
		if kind == "" {
			return
		}
		t.mu.Lock()
		covered := !t.answered[kind] || t.stale[kind]
		for _, k := range t.pending {
			covered = covered || k == kind
		}
		if !covered {
			t.stale[kind] = true
		}
		t.mu.Unlock()
		if !covered {
			d.listChanged(kind)
		}
	}
}
