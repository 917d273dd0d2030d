package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"modbay/internal/words"
	"modbay/modproto"
	"modbay/runner"
	"modbay/schema"
	"modbay/schemalint"
)

// Status is an item's verdict on the checklist.
type Status string

// Checklist verdicts.
const (
	// Pass: the module did what the protocol asks.
	Pass Status = "pass"
	// Warn: allowed, yet worth a look (an error envelope for a generated
	// valid input, which may be valid yet meaningless; a finding of the
	// validator; a descriptor that changed between describes).
	Warn Status = "warn"
	// Fail: a protocol violation, a crash, a refused artifact, a wrong
	// effect, invalid input not answered with invalid_request, an unknown
	// capability not answered with unknown_capability.
	Fail Status = "fail"
	// Skipped: not run (an input modbay cannot generate, a call that
	// needs approval without --yes); Detail says why.
	Skipped Status = "skipped"
)

// UnknownCapability is the capability id a check calls to see the module
// answer unknown_capability (docs/protocol.md §5's module codes).
const UnknownCapability = "modbay.check.no-such-capability"

// DefaultDeadline bounds each call of a check (its polls included, for a
// long-running capability): a conformance run in a module's CI must end.
const DefaultDeadline = 60 * time.Second

// Item is one line of the checklist.
type Item struct {
	// Status is the verdict.
	Status Status `json:"status"`
	// Name says what was checked: "describe", "describe twice",
	// "validate", "<capability> <case>", "unknown capability".
	Name string `json:"name"`
	// Capability is the capability called, when one was.
	Capability string `json:"capability,omitempty"`
	// Input is the input used, when a call was made or planned.
	Input json.RawMessage `json:"input,omitempty"`
	// Detail says what was seen (module text: sanitize to show).
	Detail string `json:"detail"`
	// Result is the run's outcome, when one ran (not encoded: the CLI
	// reports from it).
	Result *runner.Result `json:"-"`
	// valid says whether Input is one the schema accepts; plan is the
	// capability the call was planned as (the unknown capability is
	// planned as a real one): what a fixture needs to send it again.
	valid bool
	plan  string
}

// Report is a module's checklist, in the order it was run.
type Report struct {
	// Module is the module's id (or its reference when describe failed).
	Module string `json:"module"`
	// Items are the checklist's lines.
	Items []Item `json:"items"`
	// descriptor is the module's as checked (nil when describe failed).
	descriptor *modproto.Descriptor
}

// Failed reports whether any item failed: `modbay check` exits non-zero
// exactly then.
func (r *Report) Failed() bool {
	return slices.ContainsFunc(r.Items, func(it Item) bool { return it.Status == Fail })
}

// Count returns how many items have status s.
func (r *Report) Count(s Status) int {
	n := 0
	for _, it := range r.Items {
		if it.Status == s {
			n++
		}
	}
	return n
}

// Options are what a check was asked beyond the module.
type Options struct {
	// Yes approves the calls that need approval (docs/protocol.md §11); without
	// it their capabilities are skipped.
	Yes bool
	// Deadline bounds each call; 0 is DefaultDeadline.
	Deadline time.Duration
	// Record, when non-nil, is given each call's raw exchange recorder
	// (the item's name) so a caller can keep traces.
	Record func(name string) runner.Recorder
}

// Check runs a module's conformance checklist through h: describe twice
// (the same descriptor?), the validator's verdict, then for each
// capability every case Generate makes (those needing approval only with
// opts.Yes), then one unknown capability. Calls run through the host's
// own Plan and Run, so every rule of docs/protocol.md §5–§8 judges them; the roots
// are the host's (the caller points the workspace at a temporary
// directory). The error is non-nil when ref names no module, or when ctx
// ends (SIGINT, SIGTERM): the report then holds what was checked before,
// and the error wraps ctx's.
func Check(ctx context.Context, h *runner.Host, ref string, opts Options) (*Report, error) {
	if opts.Deadline <= 0 {
		opts.Deadline = DefaultDeadline
	}
	m0, err := h.Load(ctx, ref)
	if err != nil {
		return nil, err
	}
	rep := &Report{Module: ref}
	add := func(it Item) { rep.Items = append(rep.Items, it) }
	m1 := h.Redescribe(ctx, m0)
	if m1.Descriptor == nil {
		add(Item{Status: Fail, Name: "describe", Detail: describeFailure(m1)})
		return rep, nil
	}
	rep.Module = m1.ID
	rep.descriptor = m1.Descriptor
	add(Item{Status: Pass, Name: "describe", Detail: fmt.Sprintf("%s %s, %s", m1.Descriptor.Name, m1.Descriptor.Version, words.Count(len(m1.Descriptor.Capabilities), "capability", "capabilities"))})
	m2 := h.Redescribe(ctx, m1)
	add(sameDescriptor(m1, m2))
	for _, it := range validateItems(ctx, m2) {
		add(it)
	}
	if m2.Status == runner.StatusBroken || m2.Status == runner.StatusDisabled {
		return rep, nil
	}
	c := &checker{h: h, m: m2, opts: opts}
	for i, cp := range m2.Descriptor.Capabilities {
		if i == maxCheckCapabilities {
			add(Item{Status: Skipped, Name: "inputs",
				Detail: fmt.Sprintf("%d more capabilities not checked: check runs the first %d (an MCP server of 1,000 tools was 25,000 calls)", len(m2.Descriptor.Capabilities)-i, maxCheckCapabilities)})
			break
		}
		if cp.Hidden && m2.EffectsAreHints {
			// A URI or a prompt's values mean what the server says: a
			// generated one tells nothing of its conformance.
			add(Item{Status: Skipped, Name: "inputs", Capability: cp.ID,
				Detail: "an MCP server's resource or prompt (docs/protocol.md §17): its inputs are the server's data, not generated"})
			continue
		}
		items, err := c.capability(ctx, cp)
		for _, it := range items {
			add(it)
		}
		if err != nil {
			return rep, err
		}
	}
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("check stopped: %w", err)
	}
	add(c.unknownCapability(ctx))
	return rep, nil
}

// describeFailure says why a module could not be described, with the
// tail of its stderr.
func describeFailure(m *runner.Module) string {
	d := m.Reason
	if t := lastLine(m.Stderr); t != "" {
		d += "; stderr: " + t
	}
	return d
}

// sameDescriptor compares two describes of one module.
func sameDescriptor(a, b *runner.Module) Item {
	it := Item{Name: "describe twice"}
	if b.Descriptor == nil {
		it.Status, it.Detail = Fail, "the second describe failed: "+describeFailure(b)
		return it
	}
	ja, _ := json.Marshal(a.Descriptor)
	jb, _ := json.Marshal(b.Descriptor)
	if bytes.Equal(ja, jb) {
		it.Status, it.Detail = Pass, "the same descriptor"
		return it
	}
	var ma, mb map[string]json.RawMessage
	_ = json.Unmarshal(ja, &ma)
	_ = json.Unmarshal(jb, &mb)
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(ma)) {
		if !bytes.Equal(ma[k], mb[k]) {
			keys = append(keys, k)
		}
	}
	it.Status = Warn
	it.Detail = "the descriptor changed between two describes (" + strings.Join(keys, ", ") + "): caching and approval rely on one answer"
	return it
}

// validateItems is the validator's verdict: fail when the module or a
// capability is refused (the findings in that capability's schema that
// explain it fail too), a warning per other finding (the runner's warnings, the schema lint
// but for its model-provider subset notes), pass otherwise.
func validateItems(ctx context.Context, m *runner.Module) []Item {
	if m.Status == runner.StatusBroken {
		// The reason already names what it quotes of the violations: each
		// cause is said once.
		d := m.Reason
		for _, v := range m.Violations {
			if e := v.Error(); !strings.Contains(d, e) {
				d += "; " + e
			}
		}
		return []Item{{Status: Fail, Name: "validate", Detail: d}}
	}
	var out []Item
	refusedSchemas := map[string]bool{}
	for _, c := range m.Descriptor.Capabilities {
		if why, ok := m.Refused[c.ID]; ok {
			refusedSchemas[c.RequestSchema] = true
			out = append(out, Item{Status: Fail, Name: "validate", Capability: c.ID,
				Detail: fmt.Sprintf("capability %s is refused: no input satisfies request schema %s (%s)", c.ID, c.RequestSchema, why)})
		}
	}
	for _, w := range m.Warnings {
		out = append(out, Item{Status: Warn, Name: "validate", Detail: w})
	}
	lint := runner.LintRequestSchemas(ctx, m) // bounded over the descriptor
	for _, id := range slices.Sorted(maps.Keys(m.Descriptor.RequestSchemas)) {
		listed, more, moreSt := 0, 0, Warn
		for _, f := range lint {
			if f.Schema != id {
				continue
			}
			if f.Rule == schemalint.RuleProvider {
				continue
			}
			// A finding in a refused capability's schema explains the
			// refusal: it is an error.
			st := Warn
			if refusedSchemas[id] && (f.Rule == schemalint.RuleRequired || f.Rule == schemalint.RuleCycle || f.Rule == schemalint.RuleKeyword) {
				st, f.Severity = Fail, schemalint.Error
			}
			if listed == maxLintItems {
				more++
				if st == Fail {
					moreSt = Fail
				}
				continue
			}
			listed++
			out = append(out, Item{Status: st, Name: "validate", Detail: f.String()})
		}
		if more > 0 {
			out = append(out, Item{Status: moreSt, Name: "validate",
				Detail: fmt.Sprintf("and %d more findings in request schema %s: modbay validate lists them all", more, id)})
		}
	}
	if len(out) == 0 {
		out = append(out, Item{Status: Pass, Name: "validate", Detail: "valid (" + string(m.Status) + ")"})
	}
	return out
}

// maxCheckCapabilities bounds the capabilities one check runs cases of,
// in the descriptor's order.
const maxCheckCapabilities = 100

// maxLintItems bounds the schema findings check lists per request schema
// (one cycle can be found at thousands of references).
const maxLintItems = 20

// checker runs one module's calls.
type checker struct {
	h    *runner.Host
	m    *runner.Module
	opts Options
}

// capability runs every generated case of cp; the error wraps ctx's when
// ctx ended first (the items are those done before).
func (c *checker) capability(ctx context.Context, cp modproto.Capability) ([]Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("check stopped: %w", err)
	}
	var h *schema.Compiled
	if cp.RequestSchema != "" {
		var err error
		if h, err = schema.CompileContext(ctx, c.m.Descriptor.RequestSchemas[cp.RequestSchema]); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("check stopped: %w", ctx.Err())
			}
			return []Item{{Status: Fail, Name: cp.ID, Capability: cp.ID, Detail: "request schema " + cp.RequestSchema + " does not compile: " + err.Error()}}, nil
		}
	}
	cases, err := GenerateContext(ctx, h)
	if err != nil {
		return nil, fmt.Errorf("check stopped: %w", ctx.Err())
	}
	var out []Item
	for _, cs := range cases {
		if ctx.Err() != nil {
			return out, fmt.Errorf("check stopped: %w", ctx.Err())
		}
		name := cp.ID + " " + cs.Name
		if cs.Skip == "" && mcpTools(c.m) && !isObject(cs.Input) {
			cs.Skip = "MCP sends a tool's arguments as an object, never another value"
		}
		if cs.Skip != "" {
			out = append(out, Item{Status: Skipped, Name: name, Capability: cp.ID, Detail: cs.Skip})
			continue
		}
		out = append(out, c.call(ctx, name, cp.ID, cp.ID, cs))
	}
	return out, nil
}

// call plans and runs one case of capability planID, sending it as
// capability sendID (the unknown capability is planned as a real one).
func (c *checker) call(ctx context.Context, name, planID, sendID string, cs Case) Item {
	it := Item{Name: name, Capability: sendID, Input: cs.Input, valid: cs.Valid, plan: planID}
	p, err := c.h.PlanWith(c.m, planID, cs.Input, runner.PlanOptions{SkipValidation: !cs.Valid})
	if err != nil {
		var ie *runner.InputError
		if cs.Valid && errors.As(err, &ie) {
			it.Status, it.Detail = Fail, "the host refused modbay's generated input: "+ie.Violations.Error()
			return it
		}
		it.Status, it.Detail = Fail, "cannot plan the call: "+err.Error()
		return it
	}
	if p.NeedsApproval() && !c.opts.Yes {
		it.Status, it.Detail = Skipped, "needs approval ("+strings.Join(p.Approval, "; ")+"): pass --yes to run it"
		return it
	}
	if dl := int(c.opts.Deadline / time.Millisecond); p.Request.DeadlineMS <= 0 || p.Request.DeadlineMS > dl {
		p.Request.DeadlineMS = dl
	}
	p.Request.Capability = sendID
	cctx, cancel := context.WithTimeout(ctx, 2*c.opts.Deadline)
	defer cancel()
	ro := runner.RunOptions{Approved: true}
	if c.opts.Record != nil {
		ro.Record = c.opts.Record(name)
	}
	res, err := c.h.RunWith(cctx, p, ro)
	if err != nil {
		it.Status, it.Detail = Fail, "did not run: "+err.Error()
		return it
	}
	it.Result = res
	switch {
	case res.Host != nil && res.Host.Code == modproto.CodeHostStoreQuota:
		// The host's store is full: nothing is known of the module.
		it.Status, it.Detail = Skipped, "not judged: "+res.Host.Code+": "+res.Host.Detail
		return it
	case mcpTools(c.m):
		it.Status, it.Detail = judgeMCP(res, cs.Valid, sendID != planID)
	case sendID != planID:
		it.Status, it.Detail = judgeUnknown(res)
	default:
		it.Status, it.Detail = judge(res, cs.Valid)
	}
	if res.LikelyCause != "" && it.Status != Pass {
		// An error a valid input meets because of something the host can
		// see (a refused write, a missing program) is no perhaps: it fails.
		if it.Status == Warn && cs.Valid && res.Envelope != nil && res.Envelope.Error != nil && res.Envelope.Error.Code == modproto.CodeInternal {
			it.Status = Fail
			it.Detail = fmt.Sprintf("answered internal to a valid input: %s", res.Envelope.Error.Message)
		}
		it.Detail += "; " + res.LikelyCause
	}
	return it
}

// mcpTools reports whether m's capabilities are an MCP server's tools
// (the modules whose effects are hints, runner.Module.EffectsAreHints):
// they are judged by MCP's rules (judgeMCP).
func mcpTools(m *runner.Module) bool { return m.EffectsAreHints }

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// codeMCPError is an MCP server's JSON-RPC error answer, as the mcp
// package reports it (a host verdict; docs/protocol.md §15).
const codeMCPError = "host.mcp_error"

// judgeMCP gives a call of an MCP tool its verdict by MCP's rules: input
// its schema refuses, or an unknown tool, is rightly answered either with
// a tool error (isError) or a JSON-RPC error (-32602 invalid params); a
// server that accepts refused input is warned about (MCP asks servers to
// validate, it does not make the call wrong). A valid input is judged as
// any module's.
func judgeMCP(res *runner.Result, valid, unknown bool) (Status, string) {
	refused := func() (string, bool) {
		switch {
		case res.Host != nil && res.Host.Code == codeMCPError:
			return "answered a JSON-RPC error: " + res.Host.Detail, true
		case res.Host == nil && res.Envelope != nil && res.Envelope.Error != nil:
			return "answered a tool error (isError): " + res.Envelope.Error.Message, true
		}
		return "", false
	}
	switch {
	case unknown:
		if d, ok := refused(); ok {
			return Pass, d
		}
		// The host refuses the undeclared tool's envelope itself (§7).
		if env := res.Envelope; env != nil && env.Error != nil && res.Host != nil && onlyUndeclared(res.Host.Violations) {
			return Pass, "answered a tool error (isError): " + env.Error.Message
		}
		if res.Host != nil {
			return Fail, hostDetail(res)
		}
		return Fail, fmt.Sprintf("answered ok to tool %q, which it does not list; expected a JSON-RPC error or a tool error", UnknownCapability)
	case !valid:
		if d, ok := refused(); ok {
			return Pass, d
		}
		if res.Host != nil {
			return Fail, hostDetail(res)
		}
		return Warn, "accepted arguments its inputSchema refuses (MCP servers should validate their arguments)"
	}
	return judge(res, valid)
}

// unknownCapability calls UnknownCapability, planned as the first
// capability that runs without approval (any, with --yes).
func (c *checker) unknownCapability(ctx context.Context) Item {
	const name = "unknown capability"
	approval := 0
	for _, cp := range c.m.Descriptor.Capabilities {
		p, err := c.h.PlanWith(c.m, cp.ID, json.RawMessage(`{}`), runner.PlanOptions{SkipValidation: true})
		switch {
		case err != nil:
			continue
		case p.NeedsApproval() && !c.opts.Yes:
			approval++
			continue
		}
		return c.call(ctx, name, cp.ID, UnknownCapability, Case{Kind: KindInvalid, Input: json.RawMessage(`{}`)})
	}
	// Said only when so: --yes helps only if some capability needed approval.
	detail := "no capability can be planned to carry the call"
	switch {
	case len(c.m.Descriptor.Capabilities) == 0:
		detail = "the module declares no capability to carry the call"
	case approval > 0:
		detail = "every capability that can be planned needs approval: pass --yes"
	}
	return Item{Status: Skipped, Name: name, Capability: UnknownCapability, Detail: detail}
}

// judge gives a run of a generated input its verdict.
func judge(res *runner.Result, valid bool) (Status, string) {
	if res.Host != nil {
		return Fail, hostDetail(res)
	}
	env := res.Envelope
	if e := env.Error; e != nil {
		switch {
		case !valid && e.Code == modproto.CodeInvalidRequest:
			return Pass, "answered invalid_request"
		case !valid:
			return Fail, fmt.Sprintf("answered %s (%s) to an input its schema refuses; expected invalid_request", e.Code, e.Message)
		}
		return Warn, fmt.Sprintf("answered %s: %s (the input is valid, perhaps meaningless)", e.Code, e.Message)
	}
	if !valid {
		return Fail, "answered ok to an input its schema refuses; expected an invalid_request error"
	}
	if len(res.EffectWarnings) > 0 {
		return Fail, "the execution differs from the declared effects (docs/protocol.md §7): " + res.EffectWarnings.Error()
	}
	d := "ok, " + words.Count(len(res.Artifacts), "artifact", "artifacts") + " verified"
	if j := res.Job; j != nil {
		d += fmt.Sprintf(", job %s after %d polls", j.State, j.Polls)
		if !runner.IsTerminalJobState(j.State) || j.State == "failed" || j.State == "error" || j.State == "cancelled" {
			return Warn, d
		}
	}
	return Pass, d
}

// judgeUnknown gives the unknown capability's run its verdict: an error
// envelope with code unknown_capability passes, even though the host
// refuses the capability itself (docs/protocol.md §7: it is not declared).
func judgeUnknown(res *runner.Result) (Status, string) {
	env := res.Envelope
	if env != nil && !env.OK && env.Error != nil && env.Error.Code == modproto.CodeUnknownCapability {
		if res.Host == nil || onlyUndeclared(res.Host.Violations) {
			return Pass, "answered unknown_capability"
		}
	}
	switch {
	case res.Host != nil && (env == nil || !onlyUndeclared(res.Host.Violations)):
		return Fail, fmt.Sprintf("sent capability %q, expecting an unknown_capability error: %s", UnknownCapability, hostDetail(res))
	case env != nil && env.Error != nil:
		return Fail, fmt.Sprintf("answered %s (%s) to capability %q; expected unknown_capability", env.Error.Code, env.Error.Message, UnknownCapability)
	}
	return Fail, fmt.Sprintf("answered ok to capability %q, which it does not declare; expected an unknown_capability error", UnknownCapability)
}

// onlyUndeclared reports whether every violation is the §7 "capability is
// not declared" one.
func onlyUndeclared(v modproto.ValidationErrors) bool {
	return len(v) > 0 && !slices.ContainsFunc(v, func(e modproto.ValidationError) bool { return e.Path != "capability" })
}

// hostDetail is a host verdict with the exit status and the stderr's last
// line, what an author needs to see first.
func hostDetail(res *runner.Result) string {
	d := res.Host.Code + ": " + res.Host.Detail
	// The host's own detail already names a crash and its stderr's end
	// (runner's first-mistake messages); it is not said twice.
	if res.ExitCode > 0 && !strings.Contains(d, "exited with status") {
		d += fmt.Sprintf(" (exited with status %d)", res.ExitCode)
	}
	if t := lastLine(res.Stderr); t != "" && !strings.Contains(d, "stderr ends:") {
		d += "; stderr: " + t
	}
	return d
}

// lastLine is the last non-blank line of s, at most 200 bytes.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 200 {
		l = l[:200] + "…"
	}
	return l
}
