package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"modbay/modproto"
	"modbay/schema"
)

// Masking follows the value (docs/protocol.md §4): a secret of the input
// (schema.Redact's rule) that the module sends back is masked wherever
// the host records or shows what came back: the result, the error, the
// warnings, stdout and stderr, live events, the raw exchange, artifact
// titles and job ids (the handle itself kept for polls only,
// JobStatus.Handle). An artifact whose id, path, media type or
// presentation holds one is refused (secretIn). Artifact bytes are never
// touched (they stay verified); an encoded echo slips through
// (schema.MaskEchoes).

// PlanEchoes are the secret values of p's input (schema.Echoes, against
// its request schema as validated) and p.Echoes, longest first; nil when
// it has none. A run masks them in all it keeps of the module's reply;
// history masks and cuts its live events with them too.
func PlanEchoes(p *Plan) []schema.Echo {
	if p == nil {
		return nil
	}
	if p.Module == nil || p.Module.Descriptor == nil || p.Capability.RequestSchema == "" {
		return p.Echoes
	}
	h, err := schema.Compile(p.Module.Descriptor.RequestSchemas[p.Capability.RequestSchema])
	if err != nil {
		return p.Echoes
	}
	input := p.Request.Input
	if p.WholeRequest {
		// The schema describes the whole request, as it was validated.
		if b, err := modproto.EncodeJSON(p.Request); err == nil {
			input = b
		}
	}
	return joinEchoes(schema.Echoes(h, input), p.Echoes)
}

// joinEchoes is a's echoes then b's not in a, longest first (as
// schema.Echoes orders them, so a longer secret is masked before one
// inside it).
func joinEchoes(a, b []schema.Echo) []schema.Echo {
	if len(b) == 0 {
		return a
	}
	out := slices.Clone(a)
	for _, e := range b {
		if !slices.ContainsFunc(out, func(x schema.Echo) bool { return x.Value == e.Value }) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(x, y schema.Echo) int { return len(y.Value) - len(x.Value) })
	return out
}

// maskingOptions wraps opts' events and recorder to mask echoes. A
// secret split across stderr chunks is masked too: the end of a chunk
// that begins one (schema.EchoPrefixLen) is held back and joined to the
// next; done, called once the run ended, sends what is held, or drops it
// when the stderr was cut there (cut: the rest of a secret may follow).
func maskingOptions(opts RunOptions, echoes []schema.Echo) (_ RunOptions, done func(cut bool)) {
	done = func(bool) {}
	if len(echoes) == 0 {
		return opts, done
	}
	opts.echoes = echoes
	if next := opts.Events; next != nil {
		var mu sync.Mutex
		var held []byte
		var heldID string // the request id of the event held from
		done = func(cut bool) {
			mu.Lock()
			defer mu.Unlock()
			if len(held) > 0 && !cut {
				next(Event{RequestID: heldID, Stderr: held})
			}
			held = nil
		}
		opts.Events = func(ev Event) {
			if len(ev.Stderr) > 0 {
				mu.Lock()
				defer mu.Unlock()
				b := maskBytes(append(held, ev.Stderr...), echoes)
				k := schema.EchoPrefixLen(b, echoes)
				held, heldID = bytes.Clone(b[len(b)-k:]), ev.RequestID
				if ev.Stderr = b[:len(b)-k]; len(ev.Stderr) == 0 {
					return
				}
			}
			if ev.Job != nil {
				j := *ev.Job
				maskJob(&j, echoes)
				ev.Job = &j
			}
			if ev.Progress != nil {
				pr := *ev.Progress
				pr.Message = maskString(pr.Message, echoes)
				if pr.Percent != nil {
					if _, ok := schema.NumberEcho(*pr.Percent, echoes); ok {
						pr.Percent = nil
					}
				}
				ev.Progress = &pr
			}
			if ev.Log != nil {
				l := *ev.Log
				l.Text = maskString(l.Text, echoes)
				ev.Log = &l
			}
			next(ev)
		}
	}
	if next := opts.Record; next != nil {
		opts.Record = func(f Frame) {
			if f.Kind == FrameStderr && bytes.Contains(f.Data, []byte(StderrDropMark)) {
				f.Data = []byte(schema.MaskCutEchoes(string(f.Data), echoes)) // cut between head and tail
			} else {
				f.Data = maskBytes(f.Data, echoes)
			}
			next(f)
		}
	}
	return opts, done
}

// cutEcho drops the end of b that begins a secret (the stderr kept was
// cut there, so the rest of it may have followed).
func cutEcho(b []byte, echoes []schema.Echo) []byte {
	return b[:len(b)-schema.EchoPrefixLen(b, echoes)]
}

func maskBytes(b []byte, echoes []schema.Echo) []byte {
	out, _ := schema.MaskEchoes(b, echoes)
	return out
}

func maskString(s string, echoes []schema.Echo) string {
	return string(maskBytes([]byte(s), echoes))
}

// maskResult masks echoes in what res holds of the module's reply.
func maskResult(res *Result, echoes []schema.Echo) {
	if res == nil || len(echoes) == 0 {
		return
	}
	res.Stdout = maskBytes(res.Stdout, echoes)
	if len(res.Beside) > 0 {
		res.Beside, _ = schema.MaskEchoesJSON(res.Beside, echoes)
	}
	if res.StderrTruncated {
		res.Stderr = schema.MaskCutEchoes(res.Stderr, echoes) // cut between head and tail (StderrDropMark)
	} else {
		res.Stderr = maskString(res.Stderr, echoes)
	}
	// The host's own text quotes the module's bytes cut short: the part
	// of a secret a cut leaves goes too (schema.MaskCutEchoes).
	if res.Host != nil {
		res.Host.Detail = schema.MaskCutEchoes(res.Host.Detail, echoes)
		for i := range res.Host.Violations {
			v := &res.Host.Violations[i]
			v.Path, v.Detail = schema.MaskCutEchoes(v.Path, echoes), schema.MaskCutEchoes(v.Detail, echoes)
		}
	}
	res.LikelyCause = schema.MaskCutEchoes(res.LikelyCause, echoes)
	for i := range res.EffectWarnings {
		w := &res.EffectWarnings[i]
		w.Path, w.Detail = schema.MaskCutEchoes(w.Path, echoes), schema.MaskCutEchoes(w.Detail, echoes)
	}
	for i := range res.Artifacts {
		maskArtifact(&res.Artifacts[i].Artifact, echoes)
	}
	for i := range res.Refused {
		r := &res.Refused[i]
		r.ID, r.Reason = maskString(r.ID, echoes), schema.MaskCutEchoes(r.Reason, echoes)
	}
	for i, env := range []*modproto.Envelope{res.Envelope, res.HandleEnvelope} {
		if env == nil {
			continue
		}
		maskEnvelope(env, echoes)
		at := []string{"", "/handle"}[i]
		for _, c := range []struct {
			name string
			v    **float64
		}{{"estimated_cost", &env.Execution.EstimatedCost}, {"actual_cost", &env.Execution.ActualCost}} {
			if *c.v == nil {
				continue
			}
			if e, ok := schema.NumberEcho(**c.v, echoes); ok {
				*c.v = nil
				res.Masked = append(res.Masked, MaskedNumber{Pointer: at + "/execution/" + c.name, Label: e.Label()})
			}
		}
	}
	if res.Job != nil {
		maskJob(res.Job, echoes)
	}
}

// maskEnvelope masks echoes in every string env holds: its header
// fields, the result, the warnings, the execution (provider, artifacts)
// and the error (its code as a code token, maskCode).
func maskEnvelope(env *modproto.Envelope, echoes []schema.Echo) {
	for _, f := range []*string{&env.Protocol, &env.Module, &env.Operation, &env.RequestID, &env.Execution.Provider} {
		*f = maskString(*f, echoes)
	}
	for i := range env.Execution.Artifacts {
		maskArtifact(&env.Execution.Artifacts[i], echoes)
	}
	if len(env.Result) > 0 {
		env.Result, _ = schema.MaskEchoesJSON(env.Result, echoes)
	}
	for i, w := range env.Warnings {
		env.Warnings[i] = maskString(w, echoes)
	}
	if e := env.Error; e != nil {
		e.Code = maskCode(e.Code, echoes)
		e.Message = schema.MaskCutEchoes(e.Message, echoes) // a host (an MCP driver) may have cut it with "…"
		if len(e.Details) > 0 {
			if b, err := json.Marshal(e.Details); err == nil {
				if m, n := schema.MaskEchoesJSON(b, echoes); n > 0 {
					var d map[string]any
					if json.Unmarshal(m, &d) == nil {
						e.Details = d
					}
				}
			}
		}
	}
}

// codeMask is what an echo inside an error code becomes: a code stays
// one token scripts can match ("c_" + secret → "c_masked").
const codeMask = "masked"

// maskCode replaces every echo in an error code with codeMask; a code of
// docs/protocol.md §15 is kept as sent (it names no secret, and the
// host routes on it).
func maskCode(code string, echoes []schema.Echo) string {
	if modproto.KnownCode(code) {
		return code
	}
	for _, e := range echoes {
		code = strings.ReplaceAll(code, e.Value, codeMask)
	}
	return code
}

// maskArtifact masks echoes in every text field of a as the module
// reported it (an artifact that kept one in its id, path, media type or
// presentation was refused, secretIn).
func maskArtifact(a *modproto.Artifact, echoes []schema.Echo) {
	for _, f := range []*string{&a.ID, &a.Kind, &a.Path, &a.Root, &a.Presentation, &a.MediaType, &a.Digest, &a.Title} {
		*f = maskString(*f, echoes)
	}
}

// maskJob masks echoes in j; a job_id that holds one is kept as Handle
// for polls, and the input's secrets as Secrets, so that the polls of
// the job resumed later mask them too (docs/protocol.md §12).
func maskJob(j *JobStatus, echoes []schema.Echo) {
	if id, n := schema.MaskEchoes([]byte(j.ID), echoes); n > 0 {
		if j.Handle == "" {
			j.Handle = j.ID
		}
		j.ID = string(id)
	}
	if j.Secrets == nil && len(echoes) > 0 {
		j.Secrets = slices.Clone(echoes)
	}
	if jobStateProblem("", j.State) != "" {
		j.State = maskString(j.State, echoes) // not a state word: module text
	}
	j.Detail = maskString(j.Detail, echoes)
	if j.Percent != nil {
		if _, ok := schema.NumberEcho(*j.Percent, echoes); ok {
			j.Percent = nil // the raw status shows the mask
		}
	}
	if len(j.Raw) > 0 {
		j.Raw, _ = schema.MaskEchoesJSON(j.Raw, echoes)
	}
}

// secretIn says why artifact a is refused when its id, path, media type
// or presentation holds a secret of the input (docs/protocol.md §8): the
// host would show, record and name files by them. "" when none does; a
// title is masked instead (maskArtifact).
func secretIn(a modproto.Artifact, echoes []schema.Echo) string {
	for _, f := range []struct{ name, v string }{{"id", a.ID}, {"path", a.Path}, {"media type", a.MediaType}, {"presentation", a.Presentation}} {
		for _, e := range echoes {
			if _, n := schema.MaskEchoes([]byte(f.v), []schema.Echo{e}); n > 0 {
				return fmt.Sprintf("artifact %q: its %s holds a secret of the input (%s %s): refused, not staged (docs/protocol.md §8)",
					maskString(a.ID, echoes), f.name, e.Why, e.Pointer)
			}
		}
	}
	return ""
}
