package modproto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// versionSuffix matches a trailing "/vN" that the $id rule ignores
// (docs/protocol.md §9).
var versionSuffix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/v[0-9]+$`) })

// ValidateDescriptor checks every rule of docs/protocol.md §9 that can be checked
// without the module's files, and returns all violations (nil when valid).
// Normalize d first. Overlay and skill file digests are checked by the
// runner, which knows the module directory.
func ValidateDescriptor(d *Descriptor) ValidationErrors {
	var errs ValidationErrors
	add := func(p, f string, a ...any) { errs = append(errs, ValidationError{p, fmt.Sprintf(f, a...)}) }
	if strings.TrimSpace(d.Module) == "" {
		add("module", "must be non-empty")
	} else if !ValidModuleID(d.Module) {
		add("module", "%q breaks the id grammar: %s", clip(d.Module), ModuleIDRule)
	}
	if strings.TrimSpace(d.Name) == "" {
		add("name", "must be non-empty")
	}
	if strings.TrimSpace(d.Version) == "" {
		add("version", "must be non-empty")
	}
	if !slices.Contains(d.ProtocolVersions, ProtocolID) {
		if len(d.ProtocolVersions) == 0 {
			add("protocol_versions", "is missing or empty; it must list %q (docs/protocol.md §9)", ProtocolID)
		} else {
			add("protocol_versions", "must contain %q (got %s; docs/protocol.md §9)", ProtocolID, QuoteList(d.ProtocolVersions))
		}
	}
	ids := map[string]bool{}
	for _, c := range d.Capabilities {
		ids[c.ID] = true
	}
	seen := map[string]int{}
	for i, c := range d.Capabilities {
		p := fmt.Sprintf("capabilities[%d]", i)
		if c.ID == "" {
			add(p+".id", "must be non-empty")
		} else if !ValidCapabilityID(c.ID) {
			add(p+".id", "%q breaks the id grammar: %s", clip(c.ID), CapabilityIDRule)
		} else if j, dup := seen[c.ID]; dup {
			add(p+".id", "duplicates capabilities[%d].id %q", j, c.ID)
		} else {
			seen[c.ID] = i
		}
		if strings.TrimSpace(c.Summary) == "" {
			add(p+".summary", "must be non-empty")
		}
		if c.RequestSchema != "" {
			if _, ok := d.RequestSchemas[c.RequestSchema]; !ok {
				add(p+".request_schema", "%q is not a key of request_schemas", c.RequestSchema)
			}
		}
		if c.ResultSchema != "" {
			if _, ok := d.ResultSchemas[c.ResultSchema]; !ok {
				add(p+".result_schema", "%q is not a key of result_schemas", c.ResultSchema)
			}
		}
		for k, a := range c.ArtifactSchemas {
			if _, ok := d.ArtifactSchemas[a]; !ok {
				add(fmt.Sprintf("%s.artifact_schemas[%d]", p, k), "%q is not a key of artifact_schemas", a)
			}
		}
		switch {
		case c.LongRunning && c.PollCapability == "":
			add(p+".poll_capability", "long_running is true but poll_capability is not set")
		case !c.LongRunning && c.PollCapability != "":
			add(p+".poll_capability", "set but long_running is false")
		case c.PollCapability != "" && !ids[c.PollCapability]:
			add(p+".poll_capability", "%q is not a declared capability", c.PollCapability)
		}
		switch {
		case c.CancelCapability != "" && !c.LongRunning:
			add(p+".cancel_capability", "set but long_running is false")
		case c.CancelCapability != "" && !ids[c.CancelCapability]:
			add(p+".cancel_capability", "%q is not a declared capability", c.CancelCapability)
		}
	}
	for _, r := range []struct {
		key   string
		names []string
	}{{"permissions.filesystem_read", d.Permissions.FilesystemRead}, {"permissions.filesystem_write", d.Permissions.FilesystemWrite}} {
		for i, n := range r.names {
			if !ValidRootName(n) {
				add(fmt.Sprintf("%s[%d]", r.key, i), "%q breaks the root name grammar: %s", clip(n), RootNameRule)
			}
		}
	}
	for _, m := range []struct {
		name string
		m    map[string]json.RawMessage
	}{{"request_schemas", d.RequestSchemas}, {"result_schemas", d.ResultSchemas}, {"artifact_schemas", d.ArtifactSchemas}} {
		for _, k := range slices.Sorted(maps.Keys(m.m)) {
			p := fmt.Sprintf("%s[%q]", m.name, k)
			if msg := checkSchemaDoc(k, m.m[k]); msg != "" {
				add(p, "%s", msg)
			}
		}
	}
	for i, o := range d.AgentOverlays {
		p := fmt.Sprintf("agent_overlays[%d]", i)
		checkBundlePath(&errs, p, o.Path)
		if !ValidDigest(o.Digest) {
			add(p+".digest", "must be sha256: + 64 lowercase hex (got %q)", o.Digest)
		}
	}
	for i, s := range d.Skills {
		p := fmt.Sprintf("skills[%d]", i)
		checkBundlePath(&errs, p, s.Path)
		if !ValidDigest(s.Digest) {
			add(p+".digest", "must be sha256: + 64 lowercase hex (got %q)", s.Digest)
		}
	}
	return errs
}

// checkSchemaDoc returns why schema document raw under map key k breaks
// docs/protocol.md §9, or "".
func checkSchemaDoc(k string, raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return "schema must be a JSON object"
	}
	var head struct {
		ID *string `json:"$id"`
	}
	if err := json.Unmarshal(schemaHead(t), &head); err != nil {
		return "schema $id must be a string: " + err.Error()
	}
	if head.ID == nil {
		return ""
	}
	id := strings.ToLower(versionSuffix().ReplaceAllString(*head.ID, ""))
	key := strings.ToLower(versionSuffix().ReplaceAllString(k, ""))
	if !strings.HasSuffix(id, key) {
		return fmt.Sprintf("$id %q does not end in its key %q", cutQuoted(*head.ID), cutQuoted(k))
	}
	return ""
}

// cutQuoted is s cut to 200 bytes at a rune boundary, with "…", for a
// message that quotes a module's string.
func cutQuoted(s string) string {
	if len(s) <= 200 {
		return s
	}
	i := 200
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// schemaHead is schema t with only its members that json.Unmarshal reads
// into a field named "$id" (its spelling in any case), so a megabyte
// schema costs one scan, not encoding/json's decoding of all of it; t
// itself when it is not one JSON value (encoding/json's error then).
func schemaHead(t []byte) []byte {
	if end, _, err := scanValue(nil, t, 0, nil); err != nil || end != len(t) {
		return t
	}
	out := []byte{'{'}
	var key, fold []byte
	eachMember(t, 0, func(m member) bool {
		key = appendUnquoted(key[:0], m.key)
		if fold = appendFolded(fold[:0], key); string(fold) != "$ID" {
			return true
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, m.keyQuoted...), ':'), t[m.v0:m.v1]...)
		return true
	})
	return append(out, '}')
}

// checkBundlePath enforces that an overlay or skill path is relative and
// stays inside the module directory (docs/protocol.md §9).
func checkBundlePath(errs *ValidationErrors, p, file string) {
	if !IsRelativePath(file) {
		*errs = append(*errs, ValidationError{p + ".path", fmt.Sprintf("must be a relative path inside the module directory (got %q)", file)})
		return
	}
	clean := path.Clean(strings.ReplaceAll(file, `\`, "/"))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		*errs = append(*errs, ValidationError{p + ".path", fmt.Sprintf("escapes the module directory (got %q)", file)})
	}
}

// ValidateEnvelope checks the rules of docs/protocol.md §6 for an envelope produced
// by operation op. For invoke, requestID is the id the host sent and must be
// echoed verbatim; for describe it is ignored. moduleID, when non-empty, is
// the id the module was discovered under and must equal env.Module
// (docs/protocol.md §5 outcome 7). All violations are returned; nil means valid.
func ValidateEnvelope(env *Envelope, op, requestID, moduleID string) ValidationErrors {
	var errs ValidationErrors
	add := func(p, f string, a ...any) { errs = append(errs, ValidationError{p, fmt.Sprintf(f, a...)}) }
	if env.Protocol != ProtocolID {
		add("protocol", "must be exactly %q (got %q)", ProtocolID, env.Protocol)
	}
	if strings.TrimSpace(env.Module) == "" {
		add("module", "must be non-empty")
	} else if moduleID != "" && env.Module != moduleID {
		add("module", "is %q but the module was discovered as %q", env.Module, moduleID)
	}
	if env.Operation != op {
		add("operation", "must be the verb that was run, %q (got %q)", op, env.Operation)
	}
	if op == OperationInvoke && env.RequestID != requestID {
		add("request_id", "must echo the request's id %q verbatim (got %q)", requestID, env.RequestID)
	}
	hasResult := len(bytes.TrimSpace(env.Result)) > 0 && !bytes.Equal(bytes.TrimSpace(env.Result), []byte("null"))
	if env.OK {
		if !hasResult {
			add("result", "must be present when ok is true")
		}
		if env.Error != nil {
			add("error", "must be absent when ok is true")
		}
	} else {
		if hasResult {
			add("result", "must be absent when ok is false")
		}
		if env.Error == nil {
			add("error", "must be present when ok is false")
		}
	}
	if e := env.Error; e != nil {
		if strings.TrimSpace(e.Code) == "" {
			add("error.code", "must be non-empty")
		}
		if strings.TrimSpace(e.Message) == "" {
			add("error.message", "must be non-empty")
		}
		if e.detailsNotObject {
			add("error.details", "must be a JSON object")
		}
	}
	if !env.has("warnings") || (env.rawKind("warnings") != 0 && env.rawKind("warnings") != '[') {
		add("warnings", "must be an array (use [] for none)")
	}
	if !env.has("execution") || (env.rawKind("execution") != 0 && env.rawKind("execution") != '{') {
		add("execution", "must be present, even on failure")
	}
	for i, a := range env.Execution.Artifacts {
		p := fmt.Sprintf("execution.artifacts[%d]", i)
		if strings.TrimSpace(a.ID) == "" {
			add(p+".id", "must be non-empty")
		}
		if strings.TrimSpace(a.Root) == "" {
			add(p+".root", "must name a root supplied to this run")
		}
		if !IsRelativePath(a.Path) {
			add(p+".path", "must be relative to its root (got %q)", a.Path)
		}
		if !ValidDigest(a.Digest) {
			add(p+".digest", "must be sha256: + 64 lowercase hex (got %q)", a.Digest)
		}
		if a.Bytes < 0 {
			add(p+".bytes", "must not be negative (got %d)", a.Bytes)
		}
	}
	return errs
}

// CheckExecutionAgainstDeclared compares what an invocation of capability
// capID reports it did with what the descriptor declared (docs/protocol.md §7).
// violations are hard failures (an undeclared capability; an artifact kind
// not in the capability's artifact_schemas); warnings are shown but not
// fatal (undeclared network or external writes, a different provider, an
// unknown-cost call that used the network reporting cost 0).
func CheckExecutionAgainstDeclared(d *Descriptor, capID string, x *Execution) (violations, warnings ValidationErrors) {
	c := d.Capability(capID)
	if c == nil {
		violations = append(violations, ValidationError{"capability", fmt.Sprintf("%q is not declared by module %q", capID, d.Module)})
		return violations, nil
	}
	for i, a := range x.Artifacts {
		if !slices.Contains(c.ArtifactSchemas, a.Kind) {
			violations = append(violations, ValidationError{fmt.Sprintf("execution.artifacts[%d].kind", i),
				fmt.Sprintf("%q is not among capability %q's artifact_schemas (%s): declare it there or send one of those (docs/protocol.md §7)", a.Kind, capID, QuoteList(c.ArtifactSchemas))})
		}
	}
	e := c.Effects
	if x.Network && !e.Network {
		warnings = append(warnings, ValidationError{"execution.network", "used the network, which the capability does not declare"})
	}
	if x.ExternalWrites && !e.ExternalWrites {
		warnings = append(warnings, ValidationError{"execution.external_writes", "wrote externally, which the capability does not declare"})
	}
	if !providerExempt(x.Provider, e.Provider) && x.Provider != e.Provider {
		warnings = append(warnings, ValidationError{"execution.provider", fmt.Sprintf("reported %q but the capability declares %q", x.Provider, e.Provider)})
	}
	if !e.CostKnown && x.Network && x.ActualCost != nil && *x.ActualCost == 0 {
		warnings = append(warnings, ValidationError{"execution.actual_cost", "reported 0 (free) for an unknown-cost call that used the network"})
	}
	return violations, warnings
}

// providerExempt reports the provider pairs docs/protocol.md §7 exempts: a reported
// "" or "local", or a declared "" or "varies".
func providerExempt(reported, declared string) bool {
	return reported == "" || reported == "local" || declared == "" || declared == "varies"
}

// Capability returns the capability with id, or nil.
func (d *Descriptor) Capability(id string) *Capability {
	for i := range d.Capabilities {
		if d.Capabilities[i].ID == id {
			return &d.Capabilities[i]
		}
	}
	return nil
}

// QuoteList writes ss for a person: each quoted, comma-separated ("a",
// "b"), or "none" when empty — never Go's %v or %q list style.
func QuoteList(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
