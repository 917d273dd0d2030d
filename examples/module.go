package examples

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"modbay/modproto"
)

// Descriptor constants shared by every example (docs/protocol.md §9).
const (
	// exampleVersion is every example's own release version.
	exampleVersion = "0.1.0"
	// providerLocal is the provider of work done on this machine, which
	// docs/protocol.md §7 exempts from the provider comparison.
	providerLocal = "local"
	// schemaDialect is the JSON Schema dialect of every schema document.
	schemaDialect = "https://json-schema.org/draft/2020-12/schema"
	// schemaIDPrefix starts every schema's $id; the map key follows, so the
	// $id ends in its key as docs/protocol.md §9 requires.
	schemaIDPrefix = "urn:modbay:example:"
)

// module is one example: what its descriptor declares and the handler of
// each capability.
type module struct {
	id   string
	name string
	caps []*capability
	// requestSchemas, resultSchemas and artifactSchemas map a schema id to
	// the body of a JSON Schema object, without $schema and $id (added by
	// schemaDoc).
	requestSchemas, resultSchemas, artifactSchemas map[string]string
	// skills and overlays are bundle documents under bundles/<id>/.
	skills, overlays []bundleDoc
	permissions      modproto.Permissions
	requirements     []modproto.Requirement
}

// capability is one declared capability and its handler. run returns the
// result value (marshalled into the envelope) or an error (a *modError, or
// anything else, reported as internal).
type capability struct {
	decl modproto.Capability
	run  func(*call) (any, error)
}

// bundleDoc is a skill or agent overlay shipped in the module's bundle:
// path is relative to the module directory and to bundles/<id>/ in the
// embedded files.
type bundleDoc struct {
	id, title, summary, path string
}

// descriptor builds m's normalized descriptor. Skill and overlay digests and
// token estimates come from the same embedded bytes InstallDemoHome writes,
// so they always match the installed files (docs/protocol.md §9).
func (m *module) descriptor() *modproto.Descriptor {
	d := &modproto.Descriptor{
		Module:           m.id,
		Name:             m.name,
		Version:          exampleVersion,
		ProtocolVersions: []string{modproto.ProtocolID},
		RequestSchemas:   schemaDocs(m.requestSchemas),
		ResultSchemas:    schemaDocs(m.resultSchemas),
		ArtifactSchemas:  schemaDocs(m.artifactSchemas),
		Permissions:      m.permissions,
		Requirements:     slices.Clone(m.requirements),
	}
	for _, c := range m.caps {
		d.Capabilities = append(d.Capabilities, c.decl)
	}
	for _, s := range m.skills {
		b := mustBundleFile(m.id, s.path)
		d.Skills = append(d.Skills, modproto.Skill{
			ID: s.id, Title: s.title, Summary: s.summary, Path: s.path,
			Digest: modproto.Digest(b), Tokens: estimateTokens(b),
		})
	}
	for _, o := range m.overlays {
		b := mustBundleFile(m.id, o.path)
		d.AgentOverlays = append(d.AgentOverlays, modproto.Overlay{
			ID: o.id, Title: o.title, Path: o.path,
			Digest: modproto.Digest(b), Tokens: estimateTokens(b),
		})
	}
	d.Normalize()
	return d
}

// bytesPerToken is the rough size of one model token in English text, for
// the descriptor's token estimates.
const bytesPerToken = 4

// estimateTokens estimates the context cost of b: len/4, at least 1.
func estimateTokens(b []byte) int { return max(1, len(b)/bytesPerToken) }

// schemaDocs turns a map of schema bodies into descriptor schema documents.
func schemaDocs(bodies map[string]string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(bodies))
	for _, k := range slices.Sorted(maps.Keys(bodies)) {
		out[k] = schemaDoc(k, bodies[k])
	}
	return out
}

// schemaDoc returns the JSON Schema object body with "$schema" set to the
// 2020-12 dialect and "$id" set to schemaIDPrefix + key, keeping the body's
// property order as written (a form shows fields in the author's order, and
// a Go map would sort them). body must be a JSON object without "$schema"
// or "$id"; anything else is a programming error and panics (the tests
// describe every example).
func schemaDoc(key, body string) json.RawMessage {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &probe); err != nil {
		panic(fmt.Sprintf("examples: schema %q is not a JSON object: %v", key, err))
	}
	if _, ok := probe["$id"]; ok {
		panic(fmt.Sprintf("examples: schema %q sets $id itself", key))
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(body)); err != nil {
		panic(fmt.Sprintf("examples: schema %q: %v", key, err))
	}
	head, _ := json.Marshal(map[string]string{"$schema": schemaDialect, "$id": schemaIDPrefix + key})
	rest := bytes.TrimPrefix(compact.Bytes(), []byte("{"))
	out := append(head[:len(head)-1:len(head)-1], ',')
	if bytes.Equal(rest, []byte("}")) {
		out = append(head[:len(head)-1:len(head)-1], '}')
	} else {
		out = append(out, rest...)
	}
	return json.RawMessage(out)
}

// localFree is the declared effects of a capability that runs on this
// machine, touches no network, writes nothing outside its roots and costs
// nothing.
var localFree = modproto.Effects{Local: true, Provider: providerLocal, CostKnown: true}
