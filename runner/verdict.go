package runner

import (
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
