package mcp

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/render"
)

// Bounds of what a server said as it started (ServerSession).
const (
	// maxInstructions bounds the server's instructions, in runes.
	maxInstructions = 4000
	// maxStartupStderr bounds the stderr kept of a start, in runes.
	maxStartupStderr = 4000
	// maxCapabilities bounds the capability names kept.
	maxCapabilities = 32
)

// ServerSession is what a server said as its last session started: the
// protocol version negotiated, its capabilities ("tools (listChanged)"),
// its instructions and the stderr it wrote before answering initialize,
// each sanitized and bounded. It is kept in the server's state file, so
// describe shows it without starting the server.
type ServerSession struct {
	ProtocolVersion string   `json:"protocol_version"`
	Capabilities    []string `json:"capabilities"`
	Instructions    string   `json:"instructions,omitempty"`
	StartupStderr   string   `json:"startup_stderr,omitempty"`
}

// serverSession is ir, and the stderr written until it came, as a
// ServerSession.
func serverSession(ir *sdk.InitializeResult, stderr string) *ServerSession {
	ss := &ServerSession{ProtocolVersion: clean(ir.ProtocolVersion), Capabilities: []string{},
		Instructions:  cutRunes(render.Sanitize(ir.Instructions), maxInstructions),
		StartupStderr: cutRunes(render.Sanitize(strings.TrimRight(stderr, "\n")), maxStartupStderr)}
	var caps map[string]json.RawMessage
	if b, err := json.Marshal(ir.Capabilities); err == nil && json.Unmarshal(b, &caps) == nil {
		for _, k := range slices.Sorted(maps.Keys(caps)) {
			if len(ss.Capabilities) == maxCapabilities {
				break
			}
			// The sub-capabilities a server sets true ("listChanged").
			var sub map[string]json.RawMessage
			var on []string
			if json.Unmarshal(caps[k], &sub) == nil {
				for _, s := range slices.Sorted(maps.Keys(sub)) {
					if string(sub[s]) == "true" {
						on = append(on, s)
					}
				}
			}
			name := k
			if len(on) > 0 {
				name += " (" + strings.Join(on, ", ") + ")"
			}
			ss.Capabilities = append(ss.Capabilities, clean(name))
		}
	}
	return ss
}

// Session is what the server said as its last session started (this
// process's, or kept in its state file); nil when it never started. No
// I/O.
func (d *Driver) Session() *ServerSession {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.started
}

// noteSession keeps ss as the server's last start, in memory (d.mu held
// by the caller) and in its state file.
func (d *Driver) noteSession(ss *ServerSession) {
	d.started = ss
	d.stateMu.Lock()
	defer d.stateMu.Unlock()
	st := d.readState()
	st.Session = ss
	d.writeState(st)
}
