package schema

import (
	"errors"
	"net/mail"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The formats modbay checks, one checker for the form, JSON mode, the
// runner and invoke: every draft asserts them
// (2020-12 reads "format" as an annotation by default; modbay asserts it,
// so what the form flags the runner refuses, and "send anyway" is the one
// way past). Formats not listed here are annotations only.

// FormatHints are the shapes shown beside a field and in a format
// problem, by format name; its keys are the formats modbay checks.
var FormatHints = map[string]string{
	"date":      "YYYY-MM-DD",
	"date-time": "YYYY-MM-DDThh:mm:ssZ",
	"time":      "hh:mm:ss[Z|±hh:mm]",
	"email":     "name@example.com",
	"uri":       "scheme://host/path",
	"uuid":      "8-4-4-4-12 hex digits",
	"hostname":  "host.example.com",
	"ipv4":      "203.0.113.7",
	"ipv6":      "2001:db8::1",
}

// libraryFormats are the formats santhosh-tekuri/jsonschema v6 would
// assert on its own (draft-07 always): those modbay does not check are
// registered as annotations, so every draft reads formats one way.
var libraryFormats = []string{"json-pointer", "relative-json-pointer", "uuid", "duration", "period", "ipv4", "ipv6",
	"hostname", "email", "date", "time", "date-time", "uri", "iri", "uri-reference", "iri-reference", "uri-template", "semver"}

var (
	uuidRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	})
	hostnameRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$`)
	})
	timeRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?([zZ]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`)
	})
)

// FormatProblem checks s against a format modbay knows (RFC 3339 dates
// and times, RFC 5321 addresses, RFC 3986 URIs, RFC 4122 UUIDs, RFC 1123
// hostnames, IP addresses) and returns the problem in plain words ("not a
// valid date (YYYY-MM-DD)"); "" when it holds or the format is not one
// modbay checks.
func FormatProblem(format, s string) string {
	ok := true
	switch format {
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		ok = err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339Nano, strings.Replace(strings.Replace(s, "t", "T", 1), "z", "Z", 1))
		ok = err == nil
	case "time":
		ok = timeRe().MatchString(s)
	case "email":
		a, err := mail.ParseAddress(s)
		ok = err == nil && a.Address == s
	case "uri":
		u, err := url.Parse(s)
		ok = err == nil && u.Scheme != ""
	case "uuid":
		ok = uuidRe().MatchString(s)
	case "hostname":
		ok = len(s) <= 253 && hostnameRe().MatchString(s)
	case "ipv4":
		a, err := netip.ParseAddr(s)
		ok = err == nil && a.Is4()
	case "ipv6":
		a, err := netip.ParseAddr(s)
		ok = err == nil && a.Is6() && a.Zone() == ""
	default:
		return ""
	}
	if ok {
		return ""
	}
	return "not a valid " + format + " (" + FormatHints[format] + ")"
}

// errFormat carries FormatProblem's words through the validator.
type errFormat struct{ msg string }

func (e errFormat) Error() string { return e.msg }

// useFormats makes c assert the formats modbay checks, with
// FormatProblem, and read every other format as an annotation.
func useFormats(c *jsonschema.Compiler) {
	for _, name := range libraryFormats {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(any) error { return nil }})
	}
	for name := range FormatHints {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(v any) error {
			s, ok := v.(string)
			if !ok {
				return nil
			}
			if p := FormatProblem(name, s); p != "" {
				return errFormat{p}
			}
			return nil
		}})
	}
	c.AssertFormat()
}

// formatWords returns the plain words of a format error raised by
// useFormats' checkers.
func formatWords(err error) (string, bool) {
	var e errFormat
	if errors.As(err, &e) {
		return e.msg, true
	}
	return "", false
}
