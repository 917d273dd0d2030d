package runner

import (
	"encoding/json"
	"strings"
	"sync"
)

// SessionApprovals remembers "allow for this session" answers (docs/protocol.md
// §11), keyed by ApprovalKey: module, capability, declared effects and
// the approval reasons, so a changed descriptor must be approved again.
// The zero value is ready; it is safe for concurrent use.
type SessionApprovals struct {
	mu   sync.Mutex
	keys map[string]bool
}

// Allow records p's key as approved for the rest of the session.
func (s *SessionApprovals) Allow(p *Plan) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys == nil {
		s.keys = map[string]bool{}
	}
	s.keys[ApprovalKey(p)] = true
}

// Covers reports whether an earlier Allow covers p: same module,
// capability, effects and reasons.
func (s *SessionApprovals) Covers(p *Plan) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[ApprovalKey(p)]
}

// ApprovalKey is the session-approval key of p: the module id, the
// capability id, its declared effects (as JSON) and the approval reasons,
// NUL-separated. Any change to what the dialog showed changes the key.
func ApprovalKey(p *Plan) string {
	id := ""
	if p.Module != nil {
		id = p.Module.ID
	}
	eff, _ := json.Marshal(p.Capability.Effects)
	return strings.Join([]string{id, p.Capability.ID, string(eff), strings.Join(p.Approval, "\n")}, "\x00")
}
