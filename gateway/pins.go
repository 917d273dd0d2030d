package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
)

// PinsFile is the tool pins' file under <home>/serve (docs/gateway.md
// "Tool pinning").
const PinsFile = "pins.json"

// maxPinsFile bounds the pins file read, in bytes.
const maxPinsFile = 16 << 20

// Pin is one tool's pinned definition and, when the served definition
// differs, the changed one waiting for a person's acceptance.
type Pin struct {
	// Digest is the SHA-256 (hex) of the pinned definition (Definition).
	Digest string `json:"digest"`
	// Definition is the tool as the client saw it when pinned, with the
	// identity of the module or server it stands for.
	Definition json.RawMessage `json:"definition"`
	// Pinned is when it was first served or last accepted (RFC 3339).
	Pinned time.Time `json:"pinned"`
	// Changed, when set, is the definition now served under this name,
	// withheld until accepted.
	Changed *Changed `json:"changed,omitempty"`
}

// Changed is a definition that differs from its pin.
type Changed struct {
	Digest     string          `json:"digest"`
	Definition json.RawMessage `json:"definition"`
	Seen       time.Time       `json:"seen"`
}

// Pins is the home's tool pins (<home>/serve/pins.json), shared by every
// serve process of the home: each change is made under an exclusive
// flock and written atomically.
type Pins struct{ dir string }

// OpenPins is the pins kept in dir (<home>/serve).
func OpenPins(dir string) *Pins { return &Pins{dir: dir} }

// Path is the pins file.
func (p *Pins) Path() string { return filepath.Join(p.dir, PinsFile) }

// Load reads the pins (none when the file does not exist yet).
func (p *Pins) Load() (map[string]*Pin, error) {
	f, err := os.Open(p.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*Pin{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, maxPinsFile+1)
	n, _ := readFull(f, b)
	if n > maxPinsFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", p.Path(), maxPinsFile)
	}
	out := map[string]*Pin{}
	if n == 0 {
		return out, nil
	}
	if err := json.Unmarshal(b[:n], &out); err != nil {
		return nil, fmt.Errorf("%s: %w", p.Path(), err)
	}
	for k, v := range out {
		if v == nil {
			delete(out, k)
		}
	}
	return out, nil
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// update changes the pins under the home's lock: do edits the map and
// says whether it changed anything (only then is the file written).
func (p *Pins) update(do func(map[string]*Pin) bool) error {
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return err
	}
	lock, err := os.OpenFile(filepath.Join(p.dir, "pins.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	pins, err := p.Load()
	if err != nil {
		return err
	}
	if !do(pins) {
		return nil
	}
	b, err := json.MarshalIndent(pins, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(p.dir, ".pins-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p.Path())
}

// Judge pins each definition never served before and reports the names
// whose definition differs from its pin (recorded as Changed, withheld
// until accepted). defs maps a tool name to its definition (Definition).
func (p *Pins) Judge(defs map[string]json.RawMessage, now time.Time) (map[string]bool, error) {
	changed := map[string]bool{}
	err := p.update(func(pins map[string]*Pin) bool {
		wrote := false
		clear(changed)
		for name, def := range defs {
			d := digest(def)
			pin := pins[name]
			switch {
			case pin == nil:
				pins[name] = &Pin{Digest: d, Definition: def, Pinned: now.UTC()}
				wrote = true
			case pin.Digest == d:
				if pin.Changed != nil { // changed back
					pin.Changed, wrote = nil, true
				}
			default:
				changed[name] = true
				if pin.Changed == nil || pin.Changed.Digest != d {
					pin.Changed, wrote = &Changed{Digest: d, Definition: def, Seen: now.UTC()}, true
				}
			}
		}
		return wrote
	})
	return changed, err
}

// Accept pins name's changed definition; an error when it has none.
func (p *Pins) Accept(name string, now time.Time) error {
	var err error
	uerr := p.update(func(pins map[string]*Pin) bool {
		pin := pins[name]
		if pin == nil {
			err = fmt.Errorf("no tool %q is pinned (modbay mcp pins lists them)", name)
			return false
		}
		if pin.Changed == nil {
			err = fmt.Errorf("tool %q has not changed since it was pinned", name)
			return false
		}
		*pin = Pin{Digest: pin.Changed.Digest, Definition: pin.Changed.Definition, Pinned: now.UTC()}
		return true
	})
	if uerr != nil {
		return uerr
	}
	return err
}

// Set pins def (a Listed's Definition, as a person saw it) as name's
// definition: a serve process then serves the tool as it is now.
func (p *Pins) Set(name string, def json.RawMessage, now time.Time) error {
	return p.update(func(pins map[string]*Pin) bool {
		pins[name] = &Pin{Digest: digest(def), Definition: def, Pinned: now.UTC()}
		return true
	})
}

// Names is pins' tool names, sorted.
func Names(pins map[string]*Pin) []string {
	var out []string
	for n := range pins {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// digest is the hex SHA-256 of a definition's bytes (Definition's JSON is
// produced by encoding/json, whose map keys are sorted: stable).
func digest(def json.RawMessage) string {
	sum := sha256.Sum256(def)
	return hex.EncodeToString(sum[:])
}

// Definition is what a tool's pin covers: the tool as served (name,
// title, description, schemas, annotations, _meta) and the identity of
// the module or MCP server it stands for (its source identity, Module.Key).
func definition(e *entry) json.RawMessage {
	b, _ := json.Marshal(struct {
		Tool     any    `json:"tool"`
		Module   string `json:"module"`
		Identity string `json:"identity"`
	}{e.tool, e.module.ID, e.module.Key})
	return b
}

// pin judges next against the home's pins: a tool whose definition
// changed since it was pinned leaves next and is returned with why. A
// pins file that cannot be read or written withholds every tool.
func (s *Server) pin(next map[string]*entry) map[string]withheldTool {
	withheld := map[string]withheldTool{}
	if s.opts.Pins == nil {
		return withheld
	}
	defs := map[string]json.RawMessage{}
	for name, e := range next {
		defs[name] = definition(e)
	}
	changed, err := s.opts.Pins.Judge(defs, time.Now())
	if err != nil {
		why := "modbay cannot read or write its tool pins (" + err.Error() + "); no tool is served until it can"
		for name, e := range next {
			withheld[name] = withheldTool{why: why, e: e}
		}
		clear(next)
		return withheld
	}
	rep := runner.GlobalsOf(s.host().Config())
	rep.Workspace, rep.Examples = "", false // pins live in the home alone
	for name := range changed {
		withheld[name] = withheldTool{e: next[name], why: fmt.Sprintf("the definition of tool %q changed since it was pinned (its description, schemas, annotations or module); "+
			"it is withheld until a person accepts it: `%s` shows it, `%s` accepts it", name, rep.Line("mcp", "pins"), rep.Line("mcp", "pins", "accept", name))}
		delete(next, name)
	}
	return withheld
}

// withheldTool is a tool not served for want of its pin: why, and the
// tool it would be.
type withheldTool struct {
	why string
	e   *entry
}

// refuseWithheld answers a call of a withheld tool with why it is
// withheld, as a tool error (not_run), instead of "unknown tool". A call
// of a tool whose module's executable was edited in place since it was
// described (runner.Module.ExeChanged: one stat) first refreshes the
// catalogue, so the edit is described and judged against the pin before
// anything runs.
func (s *Server) refuseWithheld(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && r.Params != nil {
			if e := s.lookup(r.Params.Name); e != nil && e.module.ExeChanged() {
				s.Refresh(ctx)
			}
			s.mu.Lock()
			w, held := s.withheld[r.Params.Name]
			_, served := s.tools[r.Params.Name]
			s.mu.Unlock()
			if held {
				s.refused(r.Session, w.e, r.Params.Name, r.Params.Arguments, "tool_changed: "+w.why, false)
				return toolError(string(modproto.KindNotRun), CodeToolChanged, w.why+"; nothing ran"), nil
			}
			if !served && !reservedTools[r.Params.Name] {
				s.refused(r.Session, nil, r.Params.Name, nil, "unknown tool: no tool of this name is served", false)
			}
		}
		return next(ctx, method, req)
	}
}

// CodeToolChanged is the error code of a call of a tool withheld because
// its definition changed since it was pinned (kind not_run).
const CodeToolChanged = "tool_changed"

// maxDiffValue bounds one value of a definition's diff line, in bytes.
const maxDiffValue = 512

// Diff is what changed between a pinned definition and the changed one:
// one "- field: old" and "+ field: new" pair per differing field of the
// tool (description, inputSchema, annotations…) or its identity, values
// as compact JSON, sanitized and cut at maxDiffValue bytes.
func Diff(pinned, changed json.RawMessage) []string {
	flat := func(def json.RawMessage) map[string]string {
		var d struct {
			Tool     map[string]json.RawMessage `json:"tool"`
			Module   string                     `json:"module"`
			Identity string                     `json:"identity"`
		}
		_ = json.Unmarshal(def, &d)
		out := map[string]string{"module": strconvQuote(d.Module), "identity": strconvQuote(d.Identity)}
		for k, v := range d.Tool {
			var c bytes.Buffer
			if json.Compact(&c, v) != nil {
				c.Reset()
				c.Write(v)
			}
			out[k] = c.String()
		}
		return out
	}
	a, b := flat(pinned), flat(changed)
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		if a[k] != b[k] {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var out []string
	for _, k := range names {
		if v, ok := a[k]; ok {
			out = append(out, "- "+render.SanitizeLine(k)+": "+cut(render.SanitizeLine(v)))
		}
		if v, ok := b[k]; ok {
			out = append(out, "+ "+render.SanitizeLine(k)+": "+cut(render.SanitizeLine(v)))
		}
	}
	return out
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func cut(s string) string {
	if len(s) <= maxDiffValue {
		return s
	}
	s = s[:maxDiffValue]
	for len(s) > 0 && !validUTF8(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// Listed is one tool as `modbay mcp tools` shows it: the tool exactly as
// tools/list gives it, and its pin's state.
type Listed struct {
	Tool *mcp.Tool `json:"tool"`
	// Select is what --tools and --exclude patterns match (SelectID).
	Select string `json:"select"`
	// Pin is "pinned", "new" (pinned when first served) or "changed"
	// (withheld until accepted).
	Pin string `json:"pin"`
	// Diff is what changed since the pin (Diff), for a changed tool.
	Diff []string `json:"diff,omitempty"`
	// Definition is what accepting it pins (Pins.Set).
	Definition json.RawMessage `json:"-"`
}

// List is the catalogue as a client would see it now, by name, without
// serving or pinning anything: each tool with its pin's state (a
// changed tool is withheld from a client).
func (s *Server) List(ctx context.Context) ([]Listed, error) {
	next := catalogue(s.opts.Discover(ctx), s.opts.Tools, s.opts.Exclude)
	pins := map[string]*Pin{}
	if s.opts.Pins != nil {
		var err error
		if pins, err = s.opts.Pins.Load(); err != nil {
			return nil, err
		}
	}
	var out []Listed
	for name, e := range next {
		def := definition(e)
		l := Listed{Tool: e.tool, Select: SelectID(e.module.ID, e.cap.ID), Pin: "new", Definition: def}
		if p := pins[name]; p != nil {
			l.Pin = "pinned"
			if p.Digest != digest(def) {
				l.Pin, l.Diff = "changed", Diff(p.Definition, def)
			}
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b Listed) int { return strings.Compare(a.Tool.Name, b.Tool.Name) })
	return out, nil
}
