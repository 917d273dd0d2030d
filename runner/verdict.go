package runner

import (
	"strconv"
	"strings"

	"modbay/internal/words"
	"modbay/modproto"
)

// Verdict is what the host verdict of res says beside its code: its
// detail and the violations to list. Each refused artifact is listed
// once, with its reason, under the artifacts (docs/protocol.md §8): the
// verdict then counts them ("2 artifacts refused") instead of its detail
// (their reasons joined) and lists only the violations that are not a
// refusal's. res.Host must be set.
func (res *Result) Verdict() (string, modproto.ValidationErrors) {
	if len(res.Refused) == 0 {
		return res.Host.Detail, res.Host.Violations
	}
	reasons := map[string]int{}
	for _, f := range res.Refused {
		reasons[f.Reason]++
	}
	var rest modproto.ValidationErrors
	for _, v := range res.Host.Violations {
		if reasons[v.Detail] > 0 {
			reasons[v.Detail]--
			continue
		}
		rest = append(rest, v)
	}
	n := len(res.Refused)
	return words.Count(n, "artifact", "artifacts") + " refused (listed under Artifacts with " + words.Plural(n, "its reason", "their reasons") + ")", rest
}

// RefusedGroup is refused artifacts in a row that broke the same rule:
// IDs in execution.artifacts order; Reason is the one reason when there
// is one artifact, else the rule without the artifact's own name
// (`artifact "a7": `), which the IDs give.
type RefusedGroup struct {
	IDs    []string
	Reason string
}

// GroupRefused groups refused in a row by rule, so 500 artifacts past a
// bound are one line, not 500.
func GroupRefused(refused []RefusedArtifact) []RefusedGroup {
	var out []RefusedGroup
	last := ""
	for _, f := range refused {
		rule := withoutArtifactName(f.Reason)
		if n := len(out); n > 0 && rule == last {
			g := &out[n-1]
			g.IDs, g.Reason = append(g.IDs, f.ID), rule
			continue
		}
		out, last = append(out, RefusedGroup{IDs: []string{f.ID}, Reason: f.Reason}), rule
	}
	return out
}

// withoutArtifactName is reason less its leading `artifact "<id>": `.
func withoutArtifactName(reason string) string {
	const head = "artifact "
	if !strings.HasPrefix(reason, head) {
		return reason
	}
	q, err := strconv.QuotedPrefix(reason[len(head):])
	if err != nil {
		return reason
	}
	if rest, ok := strings.CutPrefix(reason[len(head)+len(q):], ": "); ok {
		return rest
	}
	return reason
}

// Names is the group's IDs as a list reads them: `"a1"`, or
// `"a1" … "a500" (500 artifacts)`; quote quotes one ID.
func (g RefusedGroup) Names(quote func(string) string) string {
	if len(g.IDs) == 1 {
		return quote(g.IDs[0])
	}
	return quote(g.IDs[0]) + " … " + quote(g.IDs[len(g.IDs)-1]) + " (" + words.Count(len(g.IDs), "artifact", "artifacts") + ")"
}
