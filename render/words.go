package render

import (
	"fmt"
	"math"

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

// MaxPlausibleCost is the largest cost in US dollars that Cost shows as a
// plain amount: no single module call plausibly costs more, so a larger
// number is a module's mistake (or a lie) and is flagged, never shown as a
// bill to pay.
const MaxPlausibleCost = 1e6

// Cost words a cost in US dollars (docs/protocol.md §6: unknown is never shown as
// free, and free is never shown as unknown):
//   - nil is "unknown", 0 is "free ($0.00)";
//   - from a cent, two decimals ("$1.50"); under a cent, four ("$0.0042");
//     under $0.0001, scientific ("$1.0e-07"), so a tiny cost never reads
//     as "$0.0000", that is as free;
//   - a negative cost is not a cost: "invalid: negative (-$1.0e+09)";
//   - above MaxPlausibleCost: "implausible: $1.0e+308", in scientific
//     notation so an absurd value stays one short word;
//   - NaN and the infinities (which JSON cannot carry, but a Go caller can)
//     are "invalid: not a number".
func Cost(v *float64) string {
	switch {
	case v == nil:
		return "unknown"
	case math.IsNaN(*v) || math.IsInf(*v, 0):
		return "invalid: not a number"
	case *v == 0:
		return "free ($0.00)"
	case *v < 0:
		return "invalid: negative (-" + dollars(-*v) + ")"
	case *v > MaxPlausibleCost:
		return "implausible: " + dollars(*v)
	default:
		return dollars(*v)
	}
}

// dollars writes a positive amount a: scientific outside [$0.0001,
// MaxPlausibleCost], four decimals under a cent, two otherwise.
func dollars(a float64) string {
	switch {
	case a > MaxPlausibleCost || a < 0.0001:
		return fmt.Sprintf("$%.1e", a)
	case a < 0.01:
		return fmt.Sprintf("$%.4f", a)
	default:
		return fmt.Sprintf("$%.2f", a)
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
