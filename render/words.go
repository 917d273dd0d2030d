package render

import (
	"fmt"

	"modbay/modproto"
)

// The few words every face of modbay (cockpit, command line, viewers) uses
// for sizes, digests, costs and effects, so they read the same everywhere.

// HumanBytes formats n bytes with a binary unit: "512 B", "1.5 KiB",
// "3.2 MiB".
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for q := n / unit; q >= unit; q /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// shortDigestHex is how many hex digits of a digest ShortDigest keeps:
// enough to tell artifacts apart on screen.
const shortDigestHex = 12

// ShortDigest is a digest sanitized and cut to "sha256:" and its first 12
// hex digits, followed by "…".
func ShortDigest(d string) string {
	const keep = len("sha256:") + shortDigestHex
	d = SanitizeLine(d)
	if len(d) > keep {
		return d[:keep] + "…"
	}
	return d
}

// Cost words a cost in US dollars: nil is "unknown", 0 is "free ($0.00)",
// under a cent four decimals, otherwise two (WIRE.md §6: unknown is never
// shown as free, and free is never shown as unknown).
func Cost(v *float64) string {
	switch {
	case v == nil:
		return "unknown"
	case *v == 0:
		return "free ($0.00)"
	case *v < 0.01:
		return fmt.Sprintf("$%.4f", *v)
	default:
		return fmt.Sprintf("$%.2f", *v)
	}
}

// EffectBadges lists a capability's declared effects as short words, in the
// order local, network, writes (external_writes), provider:<p>, cost known
// or cost unknown, long-running.
func EffectBadges(e modproto.Effects, longRunning bool) []string {
	var out []string
	if e.Local {
		out = append(out, "local")
	}
	if e.Network {
		out = append(out, "network")
	}
	if e.ExternalWrites {
		out = append(out, "writes")
	}
	if e.Provider != "" {
		out = append(out, "provider:"+SanitizeLine(e.Provider))
	}
	if e.CostKnown {
		out = append(out, "cost known")
	} else {
		out = append(out, "cost unknown")
	}
	if longRunning {
		out = append(out, "long-running")
	}
	return out
}
