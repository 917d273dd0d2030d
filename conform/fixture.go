package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"modbay/modproto"
	"modbay/runner"
	"modbay/schema"
)

// FixtureFormat names the fixture file's shape; replay refuses another.
const FixtureFormat = "modbay.fixture/v1"

// FixtureFile is the file a recorded run is written to, in its directory.
const FixtureFile = "fixture.json"

// Bounds of a fixture: it is read back from a directory anyone may edit.
const (
	// maxFixtureBytes bounds the fixture file read by Replay.
	maxFixtureBytes = 64 << 20
	// maxFixtureStderr bounds the stderr kept per case: enough for a
	// traceback, never a log.
	maxFixtureStderr = 16 << 10
	// maxDiffsPerCase bounds the differences listed for one case.
	maxDiffsPerCase = 50
	// maxNormalizedArtifact bounds the artifacts whose bytes are read to
	// normalize them (a report naming its request id); a larger one is
	// compared by the digest it was sent with.
	maxNormalizedArtifact = 8 << 20
	// minIDFragment is the shortest run of a request id's hex replaced
	// (modules name folders after 12 of its characters).
	minIDFragment = 8
)

// Placeholders stand for what varies from run to run in a recorded
// outcome: request ids (templates put them into artifact paths), run ids,
// the workspace and the home.
const (
	PlaceholderRequestID = "<request_id>"
	PlaceholderRunID     = "<run_id>"
	PlaceholderJobID     = "<job_id>"
	// PlaceholderSecret stands for a withheld input value a module echoed
	// (in its result, an artifact or stderr): a fixture never holds it.
	PlaceholderSecret = "<secret>"
)

// minSecretLen is the shortest secret value replaced where it is echoed:
// a shorter one would match ordinary text.
const minSecretLen = 4

// requestIDRE matches the host's request ids (modproto.NewRequestID) and
// run ids as they appear inside a module's strings.
var (
	requestIDRE = regexp.MustCompile(`req_[0-9a-f]{32}`)
	runIDRE     = regexp.MustCompile(`run_[0-9a-z]{8,}`)
	// runDirRE matches the host's per-run directories (a module's cwd,
	// named modbay-run-<host pid>.<host start>-<random>, or an older
	// host's modbay-run-<random>; an MCP server's session directory).
	runDirRE = regexp.MustCompile(regexp.QuoteMeta(filepath.Clean(os.TempDir())) + `/modbay-(?:run-(?:[0-9]+\.[0-9]+-)?|mcp-[A-Za-z0-9._-]+?-)[0-9]+`)
)

// timeRE matches an RFC 3339 timestamp: when a run happened never counts.
var timeRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?`)

// PlaceholderRunDir stands for a run's own temporary directory;
// PlaceholderTime for a timestamp.
const (
	PlaceholderRunDir = "<run_dir>"
	PlaceholderTime   = "<time>"
)

// Fixture is a recorded conformance run (docs/modules.md#record-and-replay):
// the requests sent and the outcomes judged, normalized so that a replay
// of the same module compares equal.
type Fixture struct {
	Format string `json:"format"`
	// Module and Version are the descriptor's when it was recorded.
	Module  string `json:"module"`
	Version string `json:"version"`
	// FromRun is set for a fixture of one run from the history (history
	// export --fixture): the module's other capabilities are not expected.
	FromRun string        `json:"from_run,omitempty"`
	Cases   []FixtureCase `json:"cases"`
}

// FixtureCase is one recorded call.
type FixtureCase struct {
	// Name is the checklist item's ("notes.echo minimal").
	Name string `json:"name"`
	// Capability is the capability sent; Plan, when set, the one it was
	// planned as (the unknown capability).
	Capability string `json:"capability"`
	Plan       string `json:"plan,omitempty"`
	// Input is the input sent, writeOnly and password values left out;
	// Withheld counts them (replay then needs them from --input).
	Input    json.RawMessage `json:"input"`
	Withheld int             `json:"withheld,omitempty"`
	// Valid is whether the request schema accepts Input.
	Valid bool `json:"valid"`
	// Outcome is what came back, normalized (see Outcome).
	Outcome json.RawMessage `json:"outcome"`
	// Stderr is the module's stderr, bounded; kept to read, not compared.
	Stderr string `json:"stderr,omitempty"`
	// Skipped says why the case was not run (approval without --yes, an
	// input modbay cannot make); replay skips it too.
	Skipped string `json:"skipped,omitempty"`
}

// outcome is the compared part of a run: the host verdict, the envelope
// (its artifacts listed once, under artifacts), the verified artifacts with
// their digests, the declared-versus-actual warnings and a job's final
// state. Timings, poll counts and the request id are left out.
type outcome struct {
	Host           *hostOutcome      `json:"host,omitempty"`
	Envelope       json.RawMessage   `json:"envelope,omitempty"`
	Artifacts      []artifactOutcome `json:"artifacts"`
	EffectWarnings []string          `json:"effect_warnings"`
	JobState       string            `json:"job_state,omitempty"`
}

type hostOutcome struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

type artifactOutcome struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Root      string `json:"root"`
	Path      string `json:"path"`
	MediaType string `json:"media_type"`
	// Digest is of the bytes with request ids and paths normalized when
	// Normalized, else the digest the module sent (verified).
	Digest     string `json:"digest"`
	Normalized bool   `json:"normalized,omitempty"`
	// Size is the size as sent, unless Normalized (it then varies).
	Size int64 `json:"size,omitempty"`
}

// normalizer replaces what varies between runs with placeholders.
type normalizer struct {
	// paths maps an absolute path to its placeholder, longest first.
	paths [][2]string
	// ids are runs of a request id's hex, longest first.
	ids []string
	// secrets are the withheld string values of the run's input.
	secrets []string
}

// newNormalizer builds the replacements for paths (absolute path →
// placeholder such as "<workspace>").
func newNormalizer(paths map[string]string) *normalizer {
	n := &normalizer{}
	for p, ph := range paths {
		if p != "" && p != "/" {
			n.paths = append(n.paths, [2]string{filepath.Clean(p), ph})
		}
	}
	slices.SortFunc(n.paths, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	return n
}

// forRun is n that also replaces the hex of each request id (and every
// run of it down to minIDFragment characters) with PlaceholderRequestID.
func (n *normalizer) forRun(ids ...string) *normalizer {
	out := &normalizer{paths: slices.Clone(n.paths), secrets: n.secrets}
	for _, id := range ids {
		hex, ok := strings.CutPrefix(id, "req_")
		if !ok || len(hex) < minIDFragment {
			continue
		}
		for k := len(hex); k >= minIDFragment; k-- {
			for i := 0; i+k <= len(hex); i++ {
				out.ids = append(out.ids, hex[i:i+k])
			}
		}
	}
	slices.SortFunc(out.ids, func(a, b string) int { return len(b) - len(a) })
	return out
}

// str normalizes one string.
func (n *normalizer) str(s string) string {
	for _, sec := range n.secrets {
		s = strings.ReplaceAll(s, sec, PlaceholderSecret)
	}
	for _, p := range n.paths {
		s = strings.ReplaceAll(s, p[0], p[1])
	}
	s = runDirRE.ReplaceAllString(s, PlaceholderRunDir)
	s = timeRE.ReplaceAllString(s, PlaceholderTime)
	s = requestIDRE.ReplaceAllString(s, PlaceholderRequestID)
	for _, id := range n.ids {
		s = strings.ReplaceAll(s, id, PlaceholderRequestID)
	}
	return runIDRE.ReplaceAllString(s, PlaceholderRunID)
}

// artifactDigest is the digest of a's bytes normalized (request ids,
// paths), and whether normalizing changed them; a's own digest when it is
// too large or unreadable.
func (n *normalizer) artifactDigest(a runner.VerifiedArtifact) (string, bool) {
	if a.Staged == "" || a.Size > maxNormalizedArtifact {
		return a.Digest, false
	}
	fh, err := os.Open(a.Staged)
	if err != nil {
		return a.Digest, false
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxNormalizedArtifact+1))
	if err != nil || len(b) > maxNormalizedArtifact {
		return a.Digest, false
	}
	norm := n.str(string(b))
	if norm == string(b) {
		return a.Digest, false
	}
	return modproto.Digest([]byte(norm)), true
}

// value normalizes every string of a decoded JSON value, keys included.
func (n *normalizer) value(v any) any {
	switch t := v.(type) {
	case string:
		return n.str(t)
	case []any:
		for i := range t {
			t[i] = n.value(t[i])
		}
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[n.str(k)] = n.value(x)
		}
		return out
	}
	return v
}

// outcomeOf is res as compared, normalized; nil res (a call that did not
// run) is an empty outcome.
func (n *normalizer) outcomeOf(res *runner.Result, detail string) json.RawMessage {
	o := outcome{Artifacts: []artifactOutcome{}, EffectWarnings: []string{}}
	if res != nil {
		ids := []string{res.RequestID}
		if res.Envelope != nil {
			ids = append(ids, res.Envelope.RequestID)
		}
		n = n.forRun(ids...)
		if j := res.Job; j != nil && len(j.ID) >= minIDFragment {
			// A job id is the module's own, new each run.
			n.paths = append([][2]string{{j.ID, PlaceholderJobID}}, n.paths...)
		}
	}
	if res == nil {
		o.Host = &hostOutcome{Code: "not_run", Detail: n.str(detail)}
	} else {
		if h := res.Host; h != nil {
			o.Host = &hostOutcome{Code: h.Code, Detail: n.str(h.Detail)}
		}
		if env := res.Envelope; env != nil {
			cp := *env
			cp.RequestID = ""
			cp.Execution.Artifacts = nil
			raw, _ := json.Marshal(&cp)
			var v map[string]any
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if dec.Decode(&v) == nil {
				delete(v, "request_id")
				if x, ok := v["execution"].(map[string]any); ok {
					delete(x, "artifacts")
				}
				o.Envelope, _ = json.Marshal(n.value(v))
			}
		}
		for _, a := range res.Artifacts {
			ao := artifactOutcome{ID: n.str(a.ID), Kind: a.Kind, Root: a.Root, Path: n.str(a.Path), MediaType: a.MediaType, Size: a.Size}
			if ao.Digest, ao.Normalized = n.artifactDigest(a); ao.Normalized {
				ao.Size = 0
			}
			o.Artifacts = append(o.Artifacts, ao)
		}
		for _, w := range res.EffectWarnings {
			o.EffectWarnings = append(o.EffectWarnings, n.str(w.Error()))
		}
		if res.Job != nil {
			o.JobState = res.Job.State
		}
	}
	raw, _ := json.Marshal(o)
	return raw
}

// NewFixture makes the fixture of a checklist: every item that made a
// call, its input with the secret values left out (schema.Redact), its
// outcome normalized with paths (absolute path → placeholder, e.g. the
// workspace's → "<workspace>").
func NewFixture(rep *Report, paths map[string]string) *Fixture {
	n := newNormalizer(paths)
	f := &Fixture{Format: FixtureFormat, Module: rep.Module, Cases: []FixtureCase{}}
	if d := rep.descriptor; d != nil {
		f.Version = d.Version
	}
	for _, it := range rep.Items {
		if it.plan == "" && it.Status == Skipped && it.Capability != "" {
			// A case with no input made: kept so replay knows the
			// capability was seen.
			f.Cases = append(f.Cases, FixtureCase{Name: it.Name, Capability: it.Capability, Skipped: it.Detail})
			continue
		}
		if it.plan == "" {
			continue
		}
		if it.Status == Skipped {
			f.Cases = append(f.Cases, FixtureCase{Name: it.Name, Capability: it.Capability, Skipped: it.Detail})
			continue
		}
		in, withheld := it.Input, 0
		cn := n
		if h := requestHandle(rep.descriptor, it.plan); h != nil && it.plan == it.Capability {
			in, withheld = schema.Redact(h, it.Input, schema.RedactOmit)
			if withheld > 0 {
				masked, _ := schema.Redact(h, it.Input, schema.RedactMask)
				cn = n.withSecrets(secretValues(it.Input, masked))
			}
		}
		c := FixtureCase{Name: it.Name, Capability: it.Capability, Input: in, Withheld: withheld, Valid: it.valid,
			Outcome: cn.outcomeOf(it.Result, it.Detail)}
		if it.plan != it.Capability {
			c.Plan = it.plan
		}
		if it.Result != nil {
			c.Stderr = cn.str(boundTail(it.Result.Stderr, maxFixtureStderr))
		}
		f.Cases = append(f.Cases, c)
	}
	return f
}

// RunFixture makes the fixture of one recorded run (history export
// --fixture): input is the input as recorded with the secret values at
// the withheld JSON pointers removed, res the run rebuilt from its record.
func RunFixture(module, runID, capID string, input json.RawMessage, withheld []string, valid bool, res *runner.Result, paths map[string]string) (*Fixture, error) {
	in := input
	for _, ptr := range withheld {
		var err error
		if in, err = removePointer(in, ptr); err != nil {
			return nil, fmt.Errorf("withheld %s: %w", ptr, err)
		}
	}
	n := newNormalizer(paths)
	c := FixtureCase{Name: capID + " (run " + n.forRun(runID).str(runID) + ")", Capability: capID, Input: in,
		Withheld: len(withheld), Valid: valid, Outcome: n.outcomeOf(res, ""), Stderr: n.str(boundTail(res.Stderr, maxFixtureStderr))}
	return &Fixture{Format: FixtureFormat, Module: module, FromRun: runID, Cases: []FixtureCase{c}}, nil
}

// removePointer removes the member or element at JSON pointer ptr from
// raw; raw unchanged when nothing is there.
func removePointer(raw json.RawMessage, ptr string) (json.RawMessage, error) {
	var v any
	if err := decodeNumbers(raw, &v); err != nil {
		return nil, err
	}
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	cur := v
	for i, p := range parts {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		last := i == len(parts)-1
		switch t := cur.(type) {
		case map[string]any:
			if last {
				delete(t, p)
			} else {
				cur = t[p]
			}
		case []any:
			k, err := strconv.Atoi(p)
			if err != nil || k < 0 || k >= len(t) {
				return raw, nil
			}
			if last {
				// An element cannot be removed without shifting the
				// rest: it is nulled.
				t[k] = nil
			} else {
				cur = t[k]
			}
		default:
			return raw, nil
		}
	}
	return json.Marshal(v)
}

// withSecrets is n that also replaces each of secrets (those at least
// minSecretLen long) with PlaceholderSecret, longest first.
func (n *normalizer) withSecrets(secrets []string) *normalizer {
	out := *n
	out.secrets = slices.Clone(n.secrets)
	for _, s := range secrets {
		if len(s) >= minSecretLen {
			out.secrets = append(out.secrets, s)
		}
	}
	slices.SortFunc(out.secrets, func(a, b string) int { return len(b) - len(a) })
	return &out
}

// secretValues are the string leaves of input that masked (the same input
// through schema.Redact with RedactMask) replaced with schema.Mask.
func secretValues(input, masked json.RawMessage) []string {
	var a, b any
	if decodeNumbers(input, &a) != nil || decodeNumbers(masked, &b) != nil {
		return nil
	}
	var out []string
	var walk func(x, y any)
	walk = func(x, y any) {
		switch t := x.(type) {
		case map[string]any:
			if u, ok := y.(map[string]any); ok {
				for k := range t {
					walk(t[k], u[k])
				}
			}
		case []any:
			if u, ok := y.([]any); ok && len(u) == len(t) {
				for i := range t {
					walk(t[i], u[i])
				}
			}
		case string:
			if y == schema.Mask && t != schema.Mask {
				out = append(out, t)
			}
		}
	}
	walk(a, b)
	return out
}

// stringLeaves are the string values anywhere in raw.
func stringLeaves(raw json.RawMessage) []string {
	var v any
	if decodeNumbers(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for _, y := range t {
				walk(y)
			}
		case []any:
			for _, y := range t {
				walk(y)
			}
		case string:
			out = append(out, t)
		}
	}
	walk(v)
	return out
}

// requestHandle compiles capability capID's request schema, nil when it
// has none or it does not compile.
func requestHandle(d *modproto.Descriptor, capID string) *schema.Compiled {
	if d == nil {
		return nil
	}
	c := d.Capability(capID)
	if c == nil || c.RequestSchema == "" {
		return nil
	}
	h, err := schema.Compile(d.RequestSchemas[c.RequestSchema])
	if err != nil {
		return nil
	}
	return h
}

// boundTail is the last max bytes of s.
func boundTail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return "…" + s[len(s)-max:]
}

// WriteFixture writes f as dir/FixtureFile (indented, stable), making dir.
func WriteFixture(dir string, f *Fixture) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, FixtureFile+".tmp")
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, FixtureFile))
}

// ReadFixture reads dir/FixtureFile, bounded, refusing another format.
func ReadFixture(dir string) (*Fixture, error) {
	fh, err := os.Open(filepath.Join(dir, FixtureFile))
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(fh, maxFixtureBytes+1)); err != nil {
		return nil, err
	}
	if buf.Len() > maxFixtureBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", FixtureFile, maxFixtureBytes)
	}
	var f Fixture
	if err := json.Unmarshal(buf.Bytes(), &f); err != nil {
		return nil, fmt.Errorf("%s: %w", FixtureFile, err)
	}
	if f.Format != FixtureFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", FixtureFile, f.Format, FixtureFormat)
	}
	return &f, nil
}

// Diff is one difference between a recorded outcome and a replayed one.
type Diff struct {
	// Case is the fixture case's name; Capability the capability sent.
	Case       string `json:"case"`
	Capability string `json:"capability"`
	// Path is the JSON pointer into the outcome ("/envelope/result/name",
	// "/artifacts/0/digest"); "" for a case-level difference.
	Path string `json:"path"`
	// Recorded and Now are the two values as JSON ("" when absent).
	Recorded string `json:"recorded"`
	Now      string `json:"now"`
	// Note says what the difference means, when the path alone does not
	// ("artifact note's digest", "a capability not in the fixture").
	Note string `json:"note,omitempty"`
}

// ReplayOptions are what a replay was asked beyond the fixture.
type ReplayOptions struct {
	Options
	// Paths maps absolute paths to placeholders, as for NewFixture.
	Paths map[string]string
	// Ignore lists JSON pointers into an outcome whose differences do
	// not count (a timestamp): a pointer ignores its whole subtree.
	Ignore []string
	// Inputs maps a capability to an object merged into each recorded
	// input of it that withheld secret values: the values left out.
	Inputs map[string]json.RawMessage
}

// ReplayReport is the result of a replay.
type ReplayReport struct {
	Module string `json:"module"`
	Cases  int    `json:"cases"`
	Diffs  []Diff `json:"diffs"`
}

// ErrSecretsWithheld is returned by Replay when a case's recorded input
// left secret values out and no --input gives them.
var ErrSecretsWithheld = errors.New("the fixture withholds secret values")

// Replay sends each request of f again to module ref through h, as Check
// sends them (same deadline and approval rules), and compares each
// outcome with the recorded one by JSON pointer. A capability the module
// declares today but the fixture never called is a difference too. The
// error is non-nil when ref names no module or a case needs secrets that
// opts.Inputs does not give (ErrSecretsWithheld, naming them).
func Replay(ctx context.Context, h *runner.Host, ref string, f *Fixture, opts ReplayOptions) (*ReplayReport, error) {
	var missing []string
	for _, c := range f.Cases {
		if c.Withheld > 0 && len(opts.Inputs[c.Capability]) == 0 {
			missing = append(missing, fmt.Sprintf("%s (%d withheld)", c.Name, c.Withheld))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w (writeOnly or password fields are never recorded): %s; pass --input CAPABILITY='{...}' with them",
			ErrSecretsWithheld, strings.Join(missing, ", "))
	}
	if opts.Deadline <= 0 {
		opts.Deadline = DefaultDeadline
	}
	m0, err := h.Load(ctx, ref)
	if err != nil {
		return nil, err
	}
	m := h.Redescribe(ctx, m0)
	rep := &ReplayReport{Module: f.Module, Diffs: []Diff{}}
	for _, c := range f.Cases {
		if c.Skipped == "" {
			rep.Cases++
		}
	}
	if m.Descriptor == nil {
		rep.Diffs = append(rep.Diffs, Diff{Case: "describe", Note: "the module no longer describes: " + describeFailure(m)})
		return rep, nil
	}
	rep.Module = m.ID
	n := newNormalizer(opts.Paths)
	c := &checker{h: h, m: m, opts: opts.Options}
	called := map[string]bool{}
	for _, fc := range f.Cases {
		called[fc.Capability] = true
		if fc.Skipped != "" {
			continue
		}
		in := fc.Input
		if fc.Withheld > 0 {
			if in, err = mergeInput(fc.Input, opts.Inputs[fc.Capability]); err != nil {
				return nil, fmt.Errorf("--input for %s: %w", fc.Capability, err)
			}
		}
		plan := fc.Capability
		if fc.Plan != "" {
			plan = fc.Plan
		}
		kind := KindMinimal
		if !fc.Valid {
			kind = KindInvalid
		}
		var now json.RawMessage
		if m.Descriptor.Capability(plan) == nil {
			now = n.outcomeOf(nil, "the module no longer declares capability "+plan)
		} else {
			it := c.call(ctx, fc.Name, plan, fc.Capability, Case{Kind: kind, Name: fc.Name, Input: in, Valid: fc.Valid})
			cn := n
			if fc.Withheld > 0 {
				// The secrets given now are hidden where echoed, as the
				// recorded ones were.
				cn = n.withSecrets(stringLeaves(opts.Inputs[fc.Capability]))
			}
			now = cn.outcomeOf(it.Result, it.Detail)
		}
		rep.Diffs = append(rep.Diffs, diffOutcomes(fc, now, opts.Ignore)...)
	}
	for _, cp := range m.Descriptor.Capabilities {
		if !called[cp.ID] && f.FromRun == "" {
			rep.Diffs = append(rep.Diffs, Diff{Case: cp.ID, Capability: cp.ID, Note: "a capability the fixture never called: record the fixture again"})
		}
	}
	return rep, nil
}

// mergeInput sets the members of over (a JSON object) on the recorded
// input; in unchanged when over is empty.
func mergeInput(in, over json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(over)) == 0 {
		return in, nil
	}
	var base, add map[string]json.RawMessage
	if err := json.Unmarshal(over, &add); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if json.Unmarshal(in, &base) != nil || base == nil {
		base = map[string]json.RawMessage{}
	}
	maps.Copy(base, add)
	return json.Marshal(base)
}

// diffOutcomes lists the differences of a recorded case's outcome and
// now's, by JSON pointer, those under an ignored pointer left out.
func diffOutcomes(fc FixtureCase, now json.RawMessage, ignore []string) []Diff {
	var a, b any
	_ = decodeNumbers(fc.Outcome, &a)
	_ = decodeNumbers(now, &b)
	var out []Diff
	walkDiff("", a, b, func(path string, x, y any, present [2]bool) {
		for _, ig := range ignore {
			if path == ig || strings.HasPrefix(path, strings.TrimSuffix(ig, "/")+"/") {
				return
			}
		}
		if len(out) >= maxDiffsPerCase {
			return
		}
		d := Diff{Case: fc.Name, Capability: fc.Capability, Path: path}
		if present[0] {
			d.Recorded = jsonText(x)
		}
		if present[1] {
			d.Now = jsonText(y)
		}
		if i, ok := artifactDigestPath(path); ok {
			d.Note = fmt.Sprintf("artifact %d changed: its digest differs", i)
		}
		out = append(out, d)
	})
	return out
}

// artifactDigestPath reports whether path is /artifacts/N/digest.
func artifactDigestPath(path string) (int, bool) {
	rest, ok := strings.CutPrefix(path, "/artifacts/")
	if !ok {
		return 0, false
	}
	num, field, ok := strings.Cut(rest, "/")
	if !ok || field != "digest" {
		return 0, false
	}
	i, err := strconv.Atoi(num)
	return i, err == nil
}

// walkDiff calls report for each leaf where a and b differ, with the JSON
// pointer (RFC 6901) and whether each side has it.
func walkDiff(path string, a, b any, report func(string, any, any, [2]bool)) {
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(x)) {
				yv, has := y[k]
				if !has {
					report(path+"/"+escapePointer(k), x[k], nil, [2]bool{true, false})
					continue
				}
				walkDiff(path+"/"+escapePointer(k), x[k], yv, report)
			}
			for _, k := range slices.Sorted(maps.Keys(y)) {
				if _, has := x[k]; !has {
					report(path+"/"+escapePointer(k), nil, y[k], [2]bool{false, true})
				}
			}
			return
		}
	case []any:
		if y, ok := b.([]any); ok {
			for i := range max(len(x), len(y)) {
				p := path + "/" + strconv.Itoa(i)
				switch {
				case i >= len(y):
					report(p, x[i], nil, [2]bool{true, false})
				case i >= len(x):
					report(p, nil, y[i], [2]bool{false, true})
				default:
					walkDiff(p, x[i], y[i], report)
				}
			}
			return
		}
	}
	if jsonText(a) != jsonText(b) {
		report(path, a, b, [2]bool{true, true})
	}
}

// escapePointer escapes a key for a JSON pointer.
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// decodeNumbers decodes raw keeping numbers as written.
func decodeNumbers(raw json.RawMessage, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// jsonText is v as compact JSON.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
