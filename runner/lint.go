package runner

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"modbay/modproto"
	"modbay/schema"
	"modbay/schemalint"
)

// maxLintFindings bounds the findings LintRequestSchemas lists over all
// of a descriptor's request schemas; past it the rest are not linted.
const maxLintFindings = 500

// LintRequestSchemas lints every request schema of m's descriptor
// (schemalint), in schema id order, stopping once ctx ends; empty, not
// nil, without a descriptor. The schemas together within their bounds
// (RequestSchemasCost), at most maxLintFindings are listed and one more
// says how many schemas were not linted; past the bounds, one finding
// names the bound and none is linted.
func LintRequestSchemas(ctx context.Context, m *Module) []schemalint.Finding {
	out := []schemalint.Finding{}
	if m == nil || m.Descriptor == nil {
		return out
	}
	if err := RequestSchemasCost(m.Descriptor); err != nil {
		return append(out, schemalint.Finding{Rule: schemalint.RuleCompile, Severity: schemalint.Error, Message: err.Error()})
	}
	ids := slices.Sorted(maps.Keys(m.Descriptor.RequestSchemas))
	for i, id := range ids {
		if ctx.Err() != nil {
			break
		}
		if len(out) >= maxLintFindings {
			extra := len(out) - maxLintFindings
			out = append(out[:maxLintFindings:maxLintFindings], schemalint.Finding{Schema: id, Rule: out[maxLintFindings-1].Rule, Severity: schemalint.Warning,
				Message: fmt.Sprintf("lint stopped after %d findings (%d more not listed): %d request schemas not linted", maxLintFindings, extra, len(ids)-i)})
			break
		}
		out = append(out, schemalint.LintContext(ctx, id, m.Descriptor.RequestSchemas[id])...)
	}
	if len(out) > maxLintFindings+1 {
		out = append(out[:maxLintFindings:maxLintFindings], schemalint.Finding{Schema: out[maxLintFindings].Schema, Rule: out[maxLintFindings].Rule,
			Severity: out[maxLintFindings].Severity, Message: fmt.Sprintf("and %d more findings, not listed (at most %d)", len(out)-maxLintFindings, maxLintFindings)})
	}
	return out
}

// RequestSchemasCost is nil when the request schemas of d together stay
// within schema.MaxLocationCompares and MaxDescriptorLocationBytes, else
// a *schema.BoundError naming the one passed: each schema is read once,
// one at a time, before any is compiled.
func RequestSchemasCost(d *modproto.Descriptor) error {
	var compares, bytes int64
	for _, id := range slices.Sorted(maps.Keys(d.RequestSchemas)) {
		c, b := schema.LocationCost(d.RequestSchemas[id])
		compares, bytes = compares+c, bytes+b
		switch {
		case compares > schema.MaxLocationCompares:
			return &schema.BoundError{Bound: "MaxLocationCompares", Limit: schema.MaxLocationCompares,
				Detail: fmt.Sprintf("the descriptor's request schemas together would make the compiler compare more than %d bytes of their locations", int64(schema.MaxLocationCompares))}
		case bytes > schema.MaxDescriptorLocationBytes:
			return &schema.BoundError{Bound: "MaxDescriptorLocationBytes", Limit: schema.MaxDescriptorLocationBytes,
				Detail: fmt.Sprintf("the descriptor's request schemas' subschema locations add up to more than %d bytes", schema.MaxDescriptorLocationBytes)}
		}
	}
	return nil
}
