package gateway

import (
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

	"modbay/internal/words"
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

// DigestOf is a definition's digest as a Pin records it.
func DigestOf(def json.RawMessage) string { return digest(def) }

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

// Bounds of a definition's diff.
const (
	// maxDiffLines bounds the lines of one field's value compared line
	// by line; a longer value is cut there (and said so).
	maxDiffLines = 2000
	// maxDiffLine bounds one line of a value, in bytes.
	maxDiffLine = 1024
	// diffContext is how many unchanged lines show around a change.
	diffContext = 2
	// maxDiffCells bounds the alignment table of one field's changed
	// lines (rows × columns, 4 bytes each).
	maxDiffCells = 1 << 20
)

// diffFields orders a definition's fields in a diff: the tool's own as a
// client reads them, then what it stands for; others follow, sorted.
var diffFields = []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta", "icons", "module", "identity"}

// Diff is what changed between a pinned definition and the changed one,
// field by field (description, inputSchema, outputSchema, annotations,
// the module and its identity…): a "field:" line, then the field's value
// compared line by line — a string as its text, anything else as
// indented JSON — each line "- " (pinned), "+ " (changed) or "  " (the
// same, at most diffContext around a change; "  … N unchanged lines"
// for the rest); in a JSON value each run of lines opens with "  @ PATH",
// the JSON path of its change ("properties.factor.maximum"), the
// enclosing keys being folded away. Lines are sanitized and cut at maxDiffLine bytes, for a
// screen to wrap.
func Diff(pinned, changed json.RawMessage) []string {
	a, b := diffValues(pinned), diffValues(changed)
	var names []string
	for _, k := range diffFields {
		if _, ok := a[k]; ok {
			names = append(names, k)
		} else if _, ok := b[k]; ok {
			names = append(names, k)
		}
	}
	var rest []string
	for _, m := range []map[string]any{a, b} {
		for k := range m {
			if !slices.Contains(diffFields, k) && !slices.Contains(rest, k) {
				rest = append(rest, k)
			}
		}
	}
	slices.Sort(rest)
	var out []string
	for _, k := range append(names, rest...) {
		x, okA := a[k]
		y, okB := b[k]
		xl, xp := diffLines(x, okA)
		yl, yp := diffLines(y, okB)
		if slices.Equal(xl, yl) {
			continue
		}
		head := render.SanitizeLine(k) + ":"
		switch {
		case !okA:
			head += " (new)"
		case !okB:
			head += " (removed)"
		}
		out = append(out, head)
		out = append(out, lineDiff(xl, yl, xp, yp)...)
	}
	return out
}

// diffValues is a definition's fields: the tool's, and its module and
// identity.
func diffValues(def json.RawMessage) map[string]any {
	var d struct {
		Tool     map[string]any `json:"tool"`
		Module   string         `json:"module"`
		Identity string         `json:"identity"`
	}
	_ = json.Unmarshal(def, &d)
	out := map[string]any{"module": d.Module, "identity": d.Identity}
	for k, v := range d.Tool {
		out[k] = v
	}
	return out
}

// diffLines is one field's value as the lines compared: a string's text,
// anything else indented JSON (as json.MarshalIndent writes it); none
// for an absent field. paths is each line's JSON path within the field
// ("properties.factor.maximum"; nil for a string). Each line is
// sanitized and cut at maxDiffLine; at most maxDiffLines (the last says
// how many were left out).
func diffLines(v any, present bool) (lines, paths []string) {
	if !present {
		return nil, nil
	}
	var ls []string
	if s, ok := v.(string); ok {
		ls = strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	} else {
		ls, paths = indentJSON(v)
	}
	var left int
	if len(ls) > maxDiffLines {
		left, ls = len(ls)-maxDiffLines, ls[:maxDiffLines]
		if paths != nil {
			paths = paths[:maxDiffLines]
		}
	}
	out := make([]string, 0, len(ls)+1)
	for _, l := range ls {
		out = append(out, cut(render.SanitizeLine(l)))
	}
	if left > 0 {
		out = append(out, fmt.Sprintf("(%d more lines not compared)", left))
		if paths != nil {
			paths = append(paths, "")
		}
	}
	return out, paths
}

// indentJSON is v (a decoded JSON value) as json.MarshalIndent(v, "",
// "  ") writes it, line by line, with each line's JSON path: the path of
// the member or element the line opens or closes ("" for the root;
// object keys joined by ".", elements as "[N]").
func indentJSON(v any) (lines, paths []string) {
	var walk func(v any, pre, lead, path, tail string)
	walk = func(v any, pre, lead, path, tail string) {
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 {
				lines, paths = append(lines, pre+lead+"{}"+tail), append(paths, path)
				return
			}
			lines, paths = append(lines, pre+lead+"{"), append(paths, path)
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for i, k := range keys {
				kb, _ := json.Marshal(k)
				sep := ","
				if i == len(keys)-1 {
					sep = ""
				}
				sub := k
				if path != "" {
					sub = path + "." + k
				}
				walk(x[k], pre+"  ", string(kb)+": ", sub, sep)
			}
			lines, paths = append(lines, pre+"}"+tail), append(paths, path)
		case []any:
			if len(x) == 0 {
				lines, paths = append(lines, pre+lead+"[]"+tail), append(paths, path)
				return
			}
			lines, paths = append(lines, pre+lead+"["), append(paths, path)
			for i, e := range x {
				sep := ","
				if i == len(x)-1 {
					sep = ""
				}
				walk(e, pre+"  ", "", fmt.Sprintf("%s[%d]", path, i), sep)
			}
			lines, paths = append(lines, pre+"]"+tail), append(paths, path)
		default:
			b, err := json.Marshal(x)
			if err != nil {
				b = []byte("(not JSON)")
			}
			lines, paths = append(lines, pre+lead+string(b)+tail), append(paths, path)
		}
	}
	walk(v, "", "", "", "")
	return lines, paths
}

// lineDiff is the line diff of a and b (their longest common
// subsequence): "- " lines only in a, "+ " only in b, "  " in both, the
// unchanged runs far from a change folded into one line. pa and pb are
// the lines' JSON paths (nil for text): each run of kept lines then opens
// with "  @ PATH", the path of its first changed line, so a change is
// named though its enclosing keys were folded.
func lineDiff(a, b, pa, pb []string) []string {
	at := func(p []string, i int) string {
		if i < len(p) {
			return p[i]
		}
		return ""
	}
	// Common prefix and suffix first: most changes are small.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	// lcs[i][j] is the LCS length of ma[i:] and mb[j:]; a middle too
	// large to align is all of a's lines removed, then all of b's added.
	align := len(ma)*len(mb) <= maxDiffCells
	lcs := make([][]int32, len(ma)+1)
	for i := range lcs {
		if align {
			lcs[i] = make([]int32, len(mb)+1)
		}
	}
	for i := len(ma) - 1; i >= 0 && align; i-- {
		for j := len(mb) - 1; j >= 0; j-- {
			if ma[i] == mb[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		mark byte
		text string
		path string
	}
	var ops []op
	for k, l := range a[:pre] {
		ops = append(ops, op{' ', l, at(pa, k)})
	}
	i, j := 0, 0
	for i < len(ma) || j < len(mb) {
		switch {
		case !align && i < len(ma):
			ops = append(ops, op{'-', ma[i], at(pa, pre+i)})
			i++
		case !align:
			ops = append(ops, op{'+', mb[j], at(pb, pre+j)})
			j++
		case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
			ops = append(ops, op{' ', ma[i], at(pa, pre+i)})
			i, j = i+1, j+1
		case i < len(ma) && (j == len(mb) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', ma[i], at(pa, pre+i)}) // a replaced line's old side first
			i++
		default:
			ops = append(ops, op{'+', mb[j], at(pb, pre+j)})
			j++
		}
	}
	for k, l := range a[len(a)-suf:] {
		ops = append(ops, op{' ', l, at(pa, len(a)-suf+k)})
	}
	// Keep diffContext unchanged lines on each side of a change.
	keep := make([]bool, len(ops))
	for k, o := range ops {
		if o.mark != ' ' {
			for c := max(k-diffContext, 0); c <= min(k+diffContext, len(ops)-1); c++ {
				keep[c] = true
			}
		}
	}
	var out []string
	for k := 0; k < len(ops); k++ {
		if !keep[k] {
			n := 0
			for k < len(ops) && !keep[k] {
				n, k = n+1, k+1
			}
			k--
			out = append(out, "  … "+words.Count(n, "unchanged line", "unchanged lines"))
			continue
		}
		if (pa != nil || pb != nil) && (k == 0 || !keep[k-1]) {
			// The run's first changed line that opens a member (a closing
			// brace names the member before it).
			path, first := "", true
			for c := k; c < len(ops) && keep[c]; c++ {
				if ops[c].mark == ' ' {
					continue
				}
				closing := strings.HasPrefix(strings.TrimSpace(ops[c].text), "}") || strings.HasPrefix(strings.TrimSpace(ops[c].text), "]")
				if first || !closing {
					path, first = ops[c].path, false
				}
				if !closing {
					break
				}
			}
			if path != "" {
				out = append(out, "  @ "+cut(render.SanitizeLine(path)))
			}
		}
		out = append(out, string(ops[k].mark)+" "+ops[k].text)
	}
	return out
}

func cut(s string) string {
	if len(s) <= maxDiffLine {
		return s
	}
	s = s[:maxDiffLine]
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
