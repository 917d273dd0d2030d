package runner

import (
	"context"
	"maps"
	"slices"

	"modbay/schemalint"
)

// LintRequestSchemas lints every request schema of m's descriptor
// (schemalint), in schema id order, stopping once ctx ends; empty, not
// nil, without a descriptor.
func LintRequestSchemas(ctx context.Context, m *Module) []schemalint.Finding {
	out := []schemalint.Finding{}
	if m == nil || m.Descriptor == nil {
		return out
	}
	for _, id := range slices.Sorted(maps.Keys(m.Descriptor.RequestSchemas)) {
		if ctx.Err() != nil {
			break
		}
		out = append(out, schemalint.LintContext(ctx, id, m.Descriptor.RequestSchemas[id])...)
	}
	return out
}
