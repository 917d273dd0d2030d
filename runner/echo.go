package runner

import (
	"encoding/json"

	"modbay/modproto"
	"modbay/schema"
)

// Masking follows the value (docs/protocol.md §4): a secret of the input
// (schema.Redact's rule) that the module sends back is masked wherever
// the host records or shows what came back: the result, the error, the
// warnings, stdout and stderr, live events and the raw exchange. Artifact
// bytes are never touched (they stay verified); an encoded echo slips
// through (schema.MaskEchoes).

// planEchoes are the secret values of p's input, nil when it has none.
func planEchoes(p *Plan) []schema.Echo {
	if p == nil || p.Module == nil || p.Module.Descriptor == nil || p.Capability.RequestSchema == "" {
		return nil
	}
	h, err := schema.Compile(p.Module.Descriptor.RequestSchemas[p.Capability.RequestSchema])
	if err != nil {
		return nil
	}
	input := p.Request.Input
	if p.WholeRequest {
		// The schema describes the whole request, as it was validated.
		if b, err := modproto.EncodeJSON(p.Request); err == nil {
			input = b
		}
	}
	return schema.Echoes(h, input)
}

// maskingOptions wraps opts' events and recorder to mask echoes.
func maskingOptions(opts RunOptions, echoes []schema.Echo) RunOptions {
	if len(echoes) == 0 {
		return opts
	}
	if next := opts.Events; next != nil {
		opts.Events = func(ev Event) {
			ev.Stderr = maskBytes(ev.Stderr, echoes)
			if ev.Progress != nil {
				pr := *ev.Progress
				pr.Message = maskString(pr.Message, echoes)
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
			f.Data = maskBytes(f.Data, echoes)
			next(f)
		}
	}
	return opts
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
	res.Stderr = maskString(res.Stderr, echoes)
	if res.Host != nil {
		res.Host.Detail = maskString(res.Host.Detail, echoes)
	}
	for _, env := range []*modproto.Envelope{res.Envelope, res.HandleEnvelope} {
		if env == nil {
			continue
		}
		if len(env.Result) > 0 {
			env.Result, _ = schema.MaskEchoesJSON(env.Result, echoes)
		}
		for i, w := range env.Warnings {
			env.Warnings[i] = maskString(w, echoes)
		}
		if e := env.Error; e != nil {
			e.Message = maskString(e.Message, echoes)
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
	if res.Job != nil {
		res.Job.Detail = maskString(res.Job.Detail, echoes)
	}
}
