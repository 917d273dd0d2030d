package mcp

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/runner"
)

// CanSubscribe reports whether the connected server offers resource
// subscriptions (its resources capability says subscribe); false when
// not connected.
func (d *Driver) CanSubscribe() bool {
	d.mu.Lock()
	s := d.sess
	d.mu.Unlock()
	return s != nil && serverCaps(s).Resources != nil && serverCaps(s).Resources.Subscribe
}

// Subscribe asks the server for updates of uri (resources/subscribe);
// each notifications/resources/updated is counted (Updated) and goes to
// the watchers. A new session holds no subscription: subscribe again.
func (d *Driver) Subscribe(ctx context.Context, uri string) error {
	s, err := d.connect(ctx)
	if err != nil {
		return err
	}
	if c := serverCaps(s).Resources; c == nil || !c.Subscribe {
		return fmt.Errorf("the server offers no resource subscriptions")
	}
	if err := s.cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		return fmt.Errorf("resources/subscribe: %w", err)
	}
	d.surf.mu.Lock()
	defer d.surf.mu.Unlock()
	if d.surf.subs == nil {
		d.surf.subs = map[string]*session{}
	}
	d.surf.subs[uri] = s
	return nil
}

// Unsubscribe ends the updates of uri (resources/unsubscribe); nothing
// is sent when this session holds no subscription to it.
func (d *Driver) Unsubscribe(ctx context.Context, uri string) error {
	d.surf.mu.Lock()
	s := d.surf.subs[uri]
	delete(d.surf.subs, uri)
	d.surf.mu.Unlock()
	if s == nil || s.ended() {
		return nil
	}
	if err := s.cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri}); err != nil {
		return fmt.Errorf("resources/unsubscribe: %w", err)
	}
	return nil
}

// Subscribed reports whether the live session holds a subscription to
// uri, how many updates of it came and when the last did.
func (d *Driver) Subscribed(uri string) (on bool, updates int, last time.Time) {
	d.mu.Lock()
	cur := d.sess
	d.mu.Unlock()
	d.surf.mu.Lock()
	defer d.surf.mu.Unlock()
	s := d.surf.subs[uri]
	u := d.surf.updates[uri]
	return s != nil && s == cur && !s.ended(), u.Count, u.Last
}

// Watch calls f with every change the server announces (list_changed,
// resource updates), from the session's goroutines, until stop is
// called. f must not block.
func (d *Driver) Watch(f func(runner.Change)) (stop func()) {
	d.surf.mu.Lock()
	defer d.surf.mu.Unlock()
	if d.surf.watchers == nil {
		d.surf.watchers = map[int]func(runner.Change){}
	}
	id := d.surf.nextW
	d.surf.nextW++
	d.surf.watchers[id] = f
	return func() {
		d.surf.mu.Lock()
		defer d.surf.mu.Unlock()
		delete(d.surf.watchers, id)
	}
}

// announce hands c to every watcher.
func (d *Driver) announce(c runner.Change) {
	d.surf.mu.Lock()
	ws := make([]func(runner.Change), 0, len(d.surf.watchers))
	for _, k := range slices.Sorted(maps.Keys(d.surf.watchers)) {
		ws = append(ws, d.surf.watchers[k])
	}
	d.surf.mu.Unlock()
	for _, w := range ws {
		w(c)
	}
}

// listChanged is a list_changed of kind (runner.ChangeTools, …): the
// cached list is stale (Refresh), the tools' output schemas are listed
// again on the next call, and the watchers are told.
func (d *Driver) listChanged(kind string) {
	d.Refresh()
	if kind == runner.ChangeTools {
		d.mu.Lock()
		d.outputs = nil
		d.mu.Unlock()
	}
	d.announce(runner.Change{Kind: kind})
}

// resourceUpdated counts a notifications/resources/updated of uri and
// tells the watchers.
func (d *Driver) resourceUpdated(uri string) {
	d.surf.mu.Lock()
	if d.surf.updates == nil || len(d.surf.updates) >= MaxResources {
		d.surf.updates = map[string]Update{}
	}
	u := d.surf.updates[uri]
	now := time.Now()
	quiet := u.Count == 0 || now.Sub(u.Last) >= updateQuiet
	u.Count++
	u.Last = now
	d.surf.updates[uri] = u
	d.surf.mu.Unlock()
	if quiet {
		d.announce(runner.Change{Kind: runner.ChangeResource, URI: uri})
	}
}

// updateQuiet is how long after announcing an update of a resource the
// next ones are only counted: a server that sends a burst of them makes
// one announcement, not a redraw each.
const updateQuiet = 250 * time.Millisecond
