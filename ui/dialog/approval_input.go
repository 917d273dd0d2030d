package dialog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"modbay/internal/words"
	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/schema"
	"modbay/ui/common"
)

// inputCompactMembers is how many top-level members of an object input the
// collapsed Input row shows, one line each; the rest are counted on a
// line that names the key that shows them.
const inputCompactMembers = 3

// approvalInput is the input a plan would send, as the approval dialog
// shows it: secret values masked by the one redaction rule (schema.Redact).
type approvalInput struct {
	// raw is the redacted input (JSON).
	raw json.RawMessage
	// masked counts the values withheld.
	masked int
}

// newApprovalInput reads the input of p (for a whole-request schema, the
// value the person filled: Extra at the root and Input under "input") and
// masks it against the capability's request schema.
func newApprovalInput(p *runner.Plan) approvalInput {
	in := p.Request.Input
	if p.WholeRequest {
		whole := map[string]json.RawMessage{}
		for k, v := range p.Request.Extra {
			whole[k] = v
		}
		if len(in) > 0 {
			whole["input"] = in
		}
		in, _ = modproto.EncodeJSON(whole)
	}
	if len(bytes.TrimSpace(in)) == 0 {
		in = json.RawMessage(`{}`)
	}
	var h *schema.Compiled
	if d := p.Module; d != nil && d.Descriptor != nil && p.Capability.RequestSchema != "" {
		// Compiled already when the plan was validated: this is the cached
		// handle, not a second compile.
		h, _ = schema.Compile(d.Descriptor.RequestSchemas[p.Capability.RequestSchema])
	}
	raw, n := schema.Redact(h, in, schema.RedactMask)
	// Secrets from beyond the input (a masked job handle, for a cancel).
	raw, k := schema.MaskEchoesJSON(raw, p.Echoes)
	return approvalInput{raw: raw, masked: n + k}
}

// lines returns the Input row's values, each one line of at most w cells:
// collapsed, an object's first members as "name: value" (value as compact
// JSON) and a count of the rest; expanded, the whole input indented, long
// lines wrapped. cut reports whether the collapsed form hides anything.
func (in approvalInput) lines(w int, expanded bool) (out []string, cut bool) {
	w = max(w, 10)
	if expanded {
		var b bytes.Buffer
		if json.Indent(&b, in.raw, "", "  ") != nil {
			b.Reset()
			b.Write(in.raw)
		}
		for _, l := range strings.Split(render.Sanitize(b.String()), "\n") {
			out = append(out, strings.Split(common.Wrap(render.SanitizeLine(l), w), "\n")...)
		}
		return out, false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(in.raw, &members) != nil || len(members) == 0 {
		var b bytes.Buffer
		if json.Compact(&b, in.raw) != nil {
			b.Write(in.raw)
		}
		line := render.SanitizeLine(b.String())
		return []string{common.Trunc(line, w)}, common.Width(line) > w
	}
	for i, k := range orderedKeys(in.raw) {
		if i == inputCompactMembers {
			rest := len(members) - i
			out = append(out, common.Trunc(fmt.Sprintf("… %d more %s", rest, words.Plural(rest, "field", "fields")), w))
			return out, true
		}
		var b bytes.Buffer
		if json.Compact(&b, members[k]) != nil {
			b.Write(members[k])
		}
		line := render.SanitizeLine(k) + ": " + render.SanitizeLine(b.String())
		if common.Width(line) > w {
			cut = true
		}
		out = append(out, common.Trunc(line, w))
	}
	return out, cut
}

// orderedKeys returns the top-level keys of a JSON object in document order
// (the order the form sent them), each once.
func orderedKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}
