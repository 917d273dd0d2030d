package runner

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// SessionApprovals remembers "allow for this session" answers (docs/protocol.md
// §11), keyed by ApprovalKey: the module as the host knows it (its source
// and executable), capability, declared effects and the approval reasons,
// so a changed descriptor or another executable claiming the id must be
// approved again. The zero value is ready; it is safe for concurrent use.
type SessionApprovals struct {
	mu   sync.Mutex
	keys map[string]bool
	// last maps module id and capability to the identity and effects
	// last allowed under them, for Why.
	last map[string]allowed
}

// allowed is what an Allow approved, beyond its key.
type allowed struct{ identity, effects string }

// Allow records p's key as approved for the rest of the session.
func (s *SessionApprovals) Allow(p *Plan) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys == nil {
		s.keys, s.last = map[string]bool{}, map[string]allowed{}
	}
	s.keys[ApprovalKey(p)] = true
	s.last[nameKey(p)] = allowed{approvalIdentity(p), effectsJSON(p)}
}

// Covers reports whether an earlier Allow covers p: same module,
// capability, effects and reasons.
func (s *SessionApprovals) Covers(p *Plan) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[ApprovalKey(p)]
}

// Why is the one line an approval of p says when p's module id and
// capability were allowed this session but p is not covered: another
// executable claims the id, or the declared effects changed. "" when
// nothing was allowed under that name.
func (s *SessionApprovals) Why(p *Plan) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.last[nameKey(p)]
	switch {
	case !ok || s.keys[ApprovalKey(p)]:
		return ""
	case a.identity != approvalIdentity(p):
		return fmt.Sprintf("asked again: another executable claims %s (%s), not the one allowed this session", p.Module.ID, p.Module.Exe)
	case a.effects != effectsJSON(p):
		return fmt.Sprintf("asked again: %s's declared effects changed since you allowed it this session", p.Capability.ID)
	}
	return "asked again: what it needs approval for changed since you allowed it this session"
}

// ApprovalKey is the session-approval key of p: the module's identity
// (approvalIdentity), the capability id, its declared effects (as JSON)
// and the approval reasons, NUL-separated. Any change to what the dialog
// showed, or to which executable runs, changes the key.
func ApprovalKey(p *Plan) string {
	return strings.Join([]string{approvalIdentity(p), p.Capability.ID, effectsJSON(p), strings.Join(p.Approval, "\n")}, "\x00")
}

// approvalIdentity is the module as the host knows it: its source
// identity (Key: the executable's path, an MCP server's config id), its
// state key and the fingerprint it was described from (the executable's
// stat and its directory's listing), never only the id it claims.
func approvalIdentity(p *Plan) string {
	if p.Module == nil {
		return ""
	}
	m := p.Module
	return strings.Join([]string{m.ID, m.Key, m.StateKey, m.Fingerprint}, "\x00")
}

// nameKey is the module id and capability id of p.
func nameKey(p *Plan) string {
	id := ""
	if p.Module != nil {
		id = p.Module.ID
	}
	return id + "\x00" + p.Capability.ID
}

// effectsJSON is p's capability's declared effects as JSON.
func effectsJSON(p *Plan) string {
	eff, _ := json.Marshal(p.Capability.Effects)
	return string(eff)
}
