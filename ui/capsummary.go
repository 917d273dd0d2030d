package ui

import (
	"context"
	"encoding/json"
	"time"

	tea "charm.land/bubbletea/v2"

	"modbay/internal/crash"
	"modbay/internal/words"
	"modbay/modproto"
	"modbay/render"
	"modbay/schema"
	"modbay/ui/form"
)

// offLoop runs work on a goroutine of its own (crash.Go: a panic gives
// the terminal back) and waits for it at most wait: done reports that it
// finished, with its result; otherwise later delivers the result once it
// does (a tea.Cmd's body). A module's schema is built this way, so a
// costly one never holds the event loop longer than wait.
func offLoop[T any](wait time.Duration, work func() T) (res T, done bool, later func() T) {
	ch := make(chan T, 1)
	crash.Go(func() { ch <- work() })
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case res = <-ch:
			return res, true, nil
		case <-t.C:
		}
	} else {
		select {
		case res = <-ch:
			return res, true, nil
		default:
		}
	}
	return res, false, func() T { return <-ch }
}

// maxDetailFields bounds the fields a capability's detail pane lists.
const maxDetailFields = 100

// maxCapSummaries bounds the summaries kept; the cache is emptied when full.
const maxCapSummaries = 256

// capSummaryKey names one request schema as discovered: the descriptor
// value (a new describe is a new one) and the schema's name in it.
type capSummaryKey struct {
	desc   *modproto.Descriptor
	schema string
}

// capField is one top-level field as the detail pane lists it.
type capField struct {
	name     string
	required bool
	kind     string
}

// capSummary is what the capability list's detail pane says of a request
// schema's input: its top-level fields (at most maxDetailFields, more
// counted), "one JSON value", or why no form can be built (err, as the
// build said it, unsanitized).
type capSummary struct {
	raw    bool
	fields []capField
	more   int
	// err is why the schema cannot be read; costly the bound a readable
	// one passes (the form opens in JSON mode).
	err, costly string
}

// capSummaryMsg is a summary built off the loop, for the cache.
type capSummaryMsg struct {
	key capSummaryKey
	seq uint64
	sum *capSummary
	// cancelled: the build was dropped (the cursor moved on); not kept.
	cancelled bool
}

// capSummaries caches the detail pane's summaries and builds the missing
// one off the event loop (form.BuildContext, as a form is built), one at a
// time: moving on to another capability cancels the build in flight.
type capSummaries struct {
	done     map[capSummaryKey]*capSummary
	inflight capSummaryKey
	cancel   context.CancelFunc
	// seq numbers the builds: only the one in flight clears inflight.
	seq uint64
}

// buildSummary builds the summary of schema raw with build under ctx.
func buildSummary(ctx context.Context, build func(context.Context, json.RawMessage) (*form.Form, error), raw json.RawMessage) (*capSummary, bool) {
	f, err := build(ctx, raw)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, true
	case err != nil && schema.IsBound(err):
		// Valid, only too costly for fields: the form opens in JSON mode.
		return &capSummary{costly: err.Error()}, false
	case err != nil:
		return &capSummary{err: err.Error()}, false
	case f.Raw():
		return &capSummary{raw: true}, false
	}
	s := &capSummary{}
	for i, fd := range f.Fields() {
		if i >= maxDetailFields {
			s.more++
			continue
		}
		s.fields = append(s.fields, capField{name: fd.Name, required: fd.Required, kind: fd.Kind.String()})
	}
	return s, false
}

// get returns the cached summary of k, or nil.
func (c *capSummaries) get(k capSummaryKey) *capSummary { return c.done[k] }

// put keeps s as k's summary.
func (c *capSummaries) put(k capSummaryKey, s *capSummary) {
	if c.done == nil || len(c.done) >= maxCapSummaries {
		c.done = map[capSummaryKey]*capSummary{}
	}
	c.done[k] = s
}

// ensure starts the build of k's summary (schema raw) unless it is cached
// or already building: it waits at most m.formWait, keeping a quick
// result at once; a longer build's result comes back as a capSummaryMsg.
func (c *capSummaries) ensure(m *Model, k capSummaryKey, raw json.RawMessage) tea.Cmd {
	if c.get(k) != nil || (c.cancel != nil && c.inflight == k) {
		return nil
	}
	if c.cancel != nil {
		c.cancel()
	}
	build := m.buildForm
	if build == nil {
		build = form.BuildContext
	}
	ctx, cancel := context.WithCancel(m.ctx)
	c.seq++
	seq := c.seq
	work := func() capSummaryMsg {
		defer cancel()
		s, dropped := buildSummary(ctx, build, raw)
		return capSummaryMsg{key: k, seq: seq, sum: s, cancelled: dropped}
	}
	res, done, later := offLoop(m.formWait, work)
	if done {
		c.cancel = nil
		if !res.cancelled {
			c.put(k, res.sum)
			if cl, ok := find[*capList](m); ok {
				cl.list.InvalidateDetail()
			}
		}
		return nil
	}
	c.inflight, c.cancel = k, cancel
	return func() tea.Msg { return later() }
}

// capSummaryDone keeps a summary built off the loop and redraws the detail pane
// that waits for it.
func (m *Model) capSummaryDone(msg capSummaryMsg) {
	c := &m.capSums
	if c.cancel != nil && c.seq == msg.seq {
		c.cancel = nil
	}
	if msg.cancelled || msg.sum == nil {
		return
	}
	c.put(msg.key, msg.sum)
	if cl, ok := find[*capList](m); ok {
		cl.list.InvalidateDetail()
	}
}

// inputLines draws a summary in the detail pane: "…" while it builds.
func (b *detailBuilder) inputLines(s *capSummary) {
	st := b.com.Styles
	switch {
	case s == nil:
		b.indented("…")
	case s.err != "":
		b.line(st.Error.Render("✗ " + render.SanitizeLine(s.err)))
	case s.costly != "":
		b.indented("JSON input: too costly for form fields (" + render.SanitizeLine(s.costly) + ")")
	case s.raw:
		b.indented("one JSON value")
	default:
		for _, fd := range s.fields {
			req := ""
			if fd.required {
				req = " *"
			}
			b.line("• " + render.SanitizeLine(fd.name) + req + " " + st.Muted.Render(fd.kind))
		}
		if s.more > 0 {
			b.line(st.Muted.Render("… and " + words.Count(s.more, "more field", "more fields")))
		}
	}
}
