package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"modbay/modproto"
)

// maxApprovedEffectsBytes bounds the approved-effects file read back
// (thousands of capabilities).
const maxApprovedEffectsBytes = 4 << 20

// approvedEffectsMu serializes this process's updates of the
// approved-effects file; another process's update may be lost (the next
// run is then asked again), never merged wrongly.
var approvedEffectsMu sync.Mutex

// preApproved reports whether policy.pre_approved covers capability c of
// m (docs/protocol.md §11). An entry binds to the module as the host knows
// it (config.PreApproval): module: matches an installed module, an
// example or an MCP server by id, never one loaded by path; path: the
// resolved executable path of one loaded by path; digest: the
// executable's bytes. A covered capability's declared effects must be
// those of its last pre-approved run (recorded when that run started); a
// first run records them, with the module's permissions, which must match
// too. why, when it is not covered but an entry named
// this module's id or path, is the one line the approval says.
// record is the effects to record when the run starts ("" for none).
func (h *Host) preApproved(m *Module, c *modproto.Capability) (covered bool, why, record string) {
	byPath := m.Origin == OriginConfig || m.Origin == OriginFlag
	var digest string
	exeDigest := func() string {
		if digest == "" && m.Exe != "" {
			if id, err := identify(m.Exe, nil); err == nil {
				digest = id.SHA256
			} else {
				digest = "unreadable"
			}
		}
		return digest
	}
	matched := false
	for _, a := range h.cfg.Policy.PreApproved {
		if !a.CoversCapability(c.ID) {
			continue
		}
		switch {
		case a.Module != "":
			if a.Module != m.ID {
				continue
			}
			if byPath {
				why = fmt.Sprintf("asked again: pre_approved names the installed %s; this one is loaded by path %s", a.Module, m.Exe)
				continue
			}
		case a.Path != "":
			if !byPath || canonical(a.Path) != canonical(m.Exe) {
				continue
			}
			if a.Digest != "" && a.Digest != exeDigest() {
				why = fmt.Sprintf("asked again: pre_approved names %s with digest %s; its bytes are now %s", a.Path, a.Digest, exeDigest())
				continue
			}
		default:
			if m.Exe == "" || a.Digest != exeDigest() {
				continue
			}
		}
		matched = true
		break
	}
	if !matched {
		return false, why, ""
	}
	eff, _ := json.Marshal(c.Effects)
	now := approvedRecord(m, c)
	prev, ok := h.approvedEffects()[approvedEffectsKey(m, c.ID)]
	switch {
	case !ok:
		return true, "", now
	case prev == now:
		return true, "", ""
	case prev == string(eff):
		// Recorded by an earlier modbay, effects only, and they match:
		// the record gains the permissions.
		return true, "", now
	}
	var was approvedAs
	if json.Unmarshal([]byte(prev), &was) != nil || was.Effects == nil || string(was.Effects) != string(eff) {
		return false, fmt.Sprintf("asked again: %s's declared effects changed since its last pre-approved run", c.ID), now
	}
	return false, fmt.Sprintf("asked again: %s's module asks for other permissions (roots, network hosts, binaries, credentials) than at its last pre-approved run", c.ID), now
}

// approvedAs is what the approved-effects file records of a pre-approved
// capability: its declared effects and its module's declared permissions
// (the roots, network hosts, binaries and credentials the dialog shows),
// so a module that widens either is asked again. Records written by
// earlier versions hold the effects alone.
type approvedAs struct {
	Effects     json.RawMessage       `json:"effects"`
	Permissions *modproto.Permissions `json:"permissions"`
}

// approvedRecord is the record of capability c of m as declared now.
func approvedRecord(m *Module, c *modproto.Capability) string {
	eff, _ := json.Marshal(c.Effects)
	var perms *modproto.Permissions
	if m.Descriptor != nil {
		p := m.Descriptor.Permissions
		perms = &p
	}
	b, _ := json.Marshal(approvedAs{Effects: eff, Permissions: perms})
	return string(b)
}

// approvedEffectsKey keys a capability in the approved-effects file: the
// module's state key (host-derived) and the capability id.
func approvedEffectsKey(m *Module, capID string) string { return m.StateKey + " " + capID }

// approvedEffects reads the approved-effects file; a missing or
// unreadable one is empty.
func (h *Host) approvedEffects() map[string]string {
	out := map[string]string{}
	f, err := os.Open(h.cfg.ApprovedEffectsFile())
	if err != nil {
		return out
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxApprovedEffectsBytes))
	if err == nil {
		_ = json.Unmarshal(b, &out)
	}
	return out
}

// recordApprovedEffects writes p's pending effects record (Plan.record)
// when its approved run starts: atomically, mode 0600.
func (h *Host) recordApprovedEffects(p *Plan) error {
	if p.approvedEffects == "" || p.Module.StateKey == "" {
		return nil
	}
	approvedEffectsMu.Lock()
	defer approvedEffectsMu.Unlock()
	all := h.approvedEffects()
	all[approvedEffectsKey(p.Module, p.Capability.ID)] = p.approvedEffects
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	path := h.cfg.ApprovedEffectsFile()
	tmp := path + ".tmp-" + modproto.NewRequestID()
	if err := writeFileMode(tmp, b, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}
