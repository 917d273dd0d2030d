package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"modbay/config"
	"modbay/internal/words"
	"modbay/modproto"
	"modbay/runner"
)

// The tool list of a server is not asked for on every list: the host's describe cache keeps it under
// the driver's Fingerprint, which digests the config entry, the server
// version last seen and a refresh epoch. Those two live in a small state
// file per server, <home>/cache/mcp/<id>.json (0600): a connect that
// meets a new server version, or a refresh, bumps the epoch, so the next
// discovery lists the tools again; otherwise the cached list is shown
// with its age.

// listFormat is the version of a cached tool list's encoding, digested
// into the Fingerprint so a list cached by an older modbay is listed
// again. 2: tool schemas kept as the server wrote them (property order),
// not re-encoded from Go maps (sorted). 3: resources, templates and
// prompts as hidden capabilities (surface.go), tools requiring tasks left
// out. 4: the prompt conversation's artifact kind (KindPrompt).
const listFormat = 4

// cacheSubdir is the folder of the state files under the home's cache.
const cacheSubdir = "mcp"

// maxStateBytes bounds a state file read back (a version, an epoch and
// a bounded catalog): anything larger is not one of ours and reads as
// empty.
const maxStateBytes = 512 << 10

// listState is what a server's state file holds.
type listState struct {
	// Version is the server's implementation version when last connected
	// ("" before the first connect).
	Version string `json:"version"`
	// Epoch counts refreshes and version changes; each makes the cached
	// tool list stale.
	Epoch int64 `json:"epoch"`
	// Catalog is the resources and prompts listed with the tools, shown
	// with the cached list.
	Catalog *Catalog `json:"catalog,omitempty"`
	// Hints are the tools' annotations as given, by tool name, for the
	// approval of a cached list's tools.
	Hints map[string]runner.ToolHints `json:"hints,omitempty"`
	// Session is what the server said as its last session started.
	Session *ServerSession `json:"session,omitempty"`
	// LogLevel is the log level the person last chose for the server
	// (SetLogLevel), one of LogLevels; "" when never chosen.
	LogLevel string `json:"log_level,omitempty"`
	// Broken is the last failed connect, while it holds this entry back
	// (brokenBackoff); nil after a connect that worked or a refresh.
	Broken *brokenState `json:"broken,omitempty"`
}

// brokenState is a server that could not be connected: it is not started
// again before Until (unless refreshed), so one broken server does not
// cost every command its connect timeout.
type brokenState struct {
	// Entry digests the config entry that failed: an edited entry is
	// tried at once.
	Entry string `json:"entry"`
	// Reason is the connect failure, one line.
	Reason string `json:"reason"`
	// Failures counts the failed connects in a row.
	Failures int       `json:"failures"`
	Until    time.Time `json:"until"`
}

// Backoff of a server that could not be connected (docs/protocol.md §14):
// the first wait, doubling per failure in a row up to the last.
const (
	brokenBackoffFirst = 30 * time.Second
	brokenBackoffMax   = 10 * time.Minute
)

// entryDigest digests the config entry.
func (d *Driver) entryDigest() string {
	b, _ := json.Marshal(d.entry())
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// heldBack is the reason a connect is not tried now: the entry failed
// to connect and its backoff has not passed ("" to try).
func (d *Driver) heldBack(now time.Time) string {
	d.stateMu.Lock()
	st := d.readState()
	d.stateMu.Unlock()
	b := st.Broken
	if b == nil || b.Entry != d.entryDigest() || !now.Before(b.Until) {
		return ""
	}
	return fmt.Sprintf("%s (not started again until %s; modbay list --refresh, invoke --refresh or r in the cockpit try it now)",
		b.Reason, b.Until.Local().Format("15:04:05"))
}

// noteConnect records a connect's outcome: a failure (reason) holds the
// entry back, doubling the wait per failure in a row; a success ("")
// forgets the failures.
func (d *Driver) noteConnect(reason string, now time.Time) {
	d.stateMu.Lock()
	defer d.stateMu.Unlock()
	st := d.readState()
	if reason == "" {
		if st.Broken != nil {
			st.Broken = nil
			d.writeState(st)
		}
		return
	}
	b := &brokenState{Entry: d.entryDigest(), Reason: reason, Failures: 1}
	if st.Broken != nil && st.Broken.Entry == b.Entry {
		b.Failures = st.Broken.Failures + 1
	}
	wait := brokenBackoffFirst << min(b.Failures-1, 10)
	b.Until = now.Add(min(wait, brokenBackoffMax))
	st.Broken = b
	d.writeState(st)
}

// statePath is server id's state file, "" when the driver keeps none
// (no cache folder was given, or an id outside the grammar of
// docs/protocol.md §13, which never names a file).
func (d *Driver) statePath() string {
	if d.cacheDir == "" || !modproto.ValidModuleID(d.id) {
		return ""
	}
	return filepath.Join(d.cacheDir, cacheSubdir, d.id+".json")
}

// readState reads the state file; a missing or unreadable one is empty.
func (d *Driver) readState() listState {
	var st listState
	p := d.statePath()
	if p == "" {
		return st
	}
	f, err := os.Open(p)
	if err != nil {
		return st
	}
	defer f.Close()
	b := make([]byte, maxStateBytes+1)
	n, _ := f.Read(b)
	if n > maxStateBytes || json.Unmarshal(b[:n], &st) != nil {
		return listState{}
	}
	return st
}

// writeState replaces the state file atomically, 0600; a failure only
// costs a later reconnect.
func (d *Driver) writeState(st listState) {
	p := d.statePath()
	if p == "" {
		return
	}
	b, err := json.Marshal(st)
	if err != nil || os.MkdirAll(filepath.Dir(p), 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), p) != nil {
		_ = os.Remove(tmp.Name())
	}
}

// noteVersion records the version a connect met: a version other than
// the one recorded bumps the epoch, so the next discovery lists the tools
// of the new version.
func (d *Driver) noteVersion(version string) {
	d.stateMu.Lock()
	defer d.stateMu.Unlock()
	st := d.readState()
	if st.Version == version {
		return
	}
	if st.Version != "" {
		st.Epoch++
	}
	st.Version = version
	d.writeState(st)
}

// keepHints stores the tools' annotations with the state, for the cached
// list.
func (d *Driver) keepHints(h map[string]runner.ToolHints) {
	d.stateMu.Lock()
	defer d.stateMu.Unlock()
	st := d.readState()
	st.Hints = h
	d.writeState(st)
}

// loadLogLevel takes the level the person last chose (the state file's)
// when this process has chosen none.
func (d *Driver) loadLogLevel() {
	d.stateMu.Lock()
	st := d.readState()
	d.stateMu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.logLevel == "" && slices.Contains(LogLevels, st.LogLevel) {
		d.logLevel = st.LogLevel
	}
}

// keepCatalog stores c with the state, for the cached list.
func (d *Driver) keepCatalog(c *Catalog) {
	d.stateMu.Lock()
	defer d.stateMu.Unlock()
	st := d.readState()
	st.Catalog = c
	d.writeState(st)
}

// Refresh makes the cached tool list stale and forgets a failed connect's
// backoff: the next discovery lists the server's tools again (connecting
// when it is not connected), as `list --refresh`, `invoke --refresh` and
// the cockpit's rediscover ask.
func (d *Driver) Refresh() {
	d.stateMu.Lock()
	st := d.readState()
	st.Epoch++
	st.Broken = nil
	d.writeState(st)
	d.stateMu.Unlock()
	d.mu.Lock()
	if d.life.State == runner.LifecycleBroken {
		d.life = runner.Lifecycle{State: runner.LifecycleStarting}
	}
	d.mu.Unlock()
}

// Fingerprint digests the config entry, the epoch (bumped by a refresh
// or a new server version) and whether a remote server is signed in: the host caches the tool list under it
// (runner's describe cache), so a list does not restart every server.
// It is "" (never cached) for a driver without a cache folder.
func (d *Driver) Fingerprint() (string, error) {
	if d.cacheDir == "" {
		return "", nil
	}
	d.stateMu.Lock()
	st := d.readState()
	d.stateMu.Unlock()
	// A cached list shows the catalog listed with it.
	d.mu.Lock()
	if d.catalog == nil {
		d.catalog = st.Catalog
	}
	if d.hints == nil {
		d.hints = st.Hints
	}
	if d.logLevel == "" && slices.Contains(LogLevels, st.LogLevel) {
		d.logLevel = st.LogLevel
	}
	if d.started == nil {
		d.started = st.Session
	}
	d.mu.Unlock()
	entry, err := json.Marshal(d.entry())
	if err != nil {
		return "", err
	}
	// The version is not digested: it is known only after a connect, and
	// a change of it bumps the epoch.
	h := sha256.New()
	h.Write(entry)
	fmt.Fprintf(h, "\x00epoch %d\x00format %d", st.Epoch, listFormat)
	// Signing in or out (modbay mcp login, logout) lists the server again.
	if d.home != "" && d.srv.Transport() == "http" && SignedIn(d.home, d.id) {
		h.Write([]byte("\x00signed in"))
	}
	return "mcp-sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// pruneStates removes the state files of servers no longer configured,
// so the folder holds one small file per configured server at most.
func pruneStates(cacheDir string, ids map[string]config.MCPServer) {
	dir := filepath.Join(cacheDir, cacheSubdir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if _, known := ids[id]; ok && !known || strings.HasPrefix(e.Name(), ".tmp-") {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// ListedAge says how old a cached tool list is, for list and the
// cockpit: "tools as of " and words.Ago ("just now", "3m ago", ...).
func ListedAge(at, now time.Time) string { return "tools as of " + words.Ago(now, at) }
