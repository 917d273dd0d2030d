package gateway

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/history"
	"modbay/internal/words"
	"modbay/render"
)

// Bounds of the records of calls refused before planning (docs/gateway.md
// "What is recorded"): a serve process records at most refusedBurst at
// once, then one each refusedEvery; the rest are counted, and the count
// is recorded with the next refusal it records (or when it ends).
const (
	refusedBurst = 20
	refusedEvery = 30 * time.Second
	// maxRefusedTool bounds the name of a tool not served, as recorded.
	maxRefusedTool = 2 * MaxToolName
)

// refusals is the bound on a serve process's refusal records: a token
// bucket of refusedBurst, refilled one each refusedEvery.
type refusals struct {
	mu     sync.Mutex
	tokens float64
	last   time.Time
	// dropped counts the refusals not recorded since droppedSince.
	dropped      int
	droppedSince time.Time
	// lastDropped is the last refusal not recorded (for the count's
	// record when the process ends).
	lastDropped history.Refused
}

// take reports whether a refusal at now may be recorded, and the
// refusals not recorded before it (then cleared).
func (b *refusals) take(now time.Time, r history.Refused) (bool, int, time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.last.IsZero() {
		b.tokens = refusedBurst
	} else {
		b.tokens = min(refusedBurst, b.tokens+float64(now.Sub(b.last))/float64(refusedEvery))
	}
	b.last = now
	if b.tokens < 1 {
		if b.dropped == 0 {
			b.droppedSince = now
		}
		b.dropped++
		b.lastDropped = r
		return false, 0, time.Time{}
	}
	b.tokens--
	n, since := b.dropped, b.droppedSince
	b.dropped = 0
	return true, n, since
}

// refused records a call refused before planning (busy, an invalid
// input, a tool not served or withheld) as not run with why, within the
// refusals bound, and counts it in its session's calls not run (and in
// its calls unless counted, when the call already was). e is the tool's
// entry (nil for a tool not served).
func (s *Server) refused(ss *mcp.ServerSession, e *entry, tool string, args json.RawMessage, why string, counted bool) {
	client := "unknown client"
	if ss != nil {
		st := s.sessionOf(ss)
		st.mu.Lock()
		st.notRun++
		if !counted {
			st.calls++
		}
		client = st.client
		st.mu.Unlock()
		s.sessionsChanged()
	}
	if s.opts.History == nil {
		return
	}
	r := history.Refused{Source: history.SourceMCPServe, Client: client, Detail: "not run: " + why, Input: args}
	if e != nil {
		r.Module, r.Capability = e.module, e.cap
	} else {
		r.Tool = render.SanitizeLine(tool)
		if len(r.Tool) > maxRefusedTool {
			r.Tool = clientName(r.Tool[:maxRefusedTool]) // cut on a rune boundary
		}
	}
	ok, dropped, since := s.refusals.take(time.Now(), r)
	if !ok {
		return
	}
	if dropped > 0 {
		r.Detail += fmt.Sprintf(" (and %s before it since %s, not recorded: %s)", words.Count(dropped, "refused call", "refused calls"),
			since.Local().Format(time.TimeOnly), refusalBound)
	}
	_, _ = s.opts.History.RecordRefused(r)
}

// refusalBound says the bound in words.
var refusalBound = fmt.Sprintf("a serve process records at most %d refused calls at once, then one each %s", refusedBurst, refusedEvery)

// flushRefusals records the count of the refusals not recorded, when the
// process ends with some.
func (s *Server) flushRefusals() {
	b := &s.refusals
	b.mu.Lock()
	n, since, r := b.dropped, b.droppedSince, b.lastDropped
	b.dropped = 0
	b.mu.Unlock()
	if n == 0 || s.opts.History == nil {
		return
	}
	r.Detail += fmt.Sprintf(" (the last of %s since %s not recorded: %s)", words.Count(n, "refused call", "refused calls"), since.Local().Format(time.TimeOnly), refusalBound)
	_, _ = s.opts.History.RecordRefused(r)
}
