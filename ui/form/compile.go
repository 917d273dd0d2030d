package form

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"modbay/runner"
)

// compiled is a request schema compiled with santhosh-tekuri/jsonschema
// for the form's own live decisions: which oneOf/anyOf variant a loaded
// value belongs to and whether an "if" holds. (Validation of the whole
// input is the Validator's, the same one the runner's Plan uses.)
type compiled struct {
	c    *jsonschema.Compiler
	url  string
	subs map[string]*jsonschema.Schema
}

// draftOf returns the $schema of a document, "" when it declares none.
func draftOf(doc any) string {
	m, _ := doc.(map[string]any)
	s, _ := m["$schema"].(string)
	return s
}

// compileSchema compiles raw. A document without "$schema" is tried as
// 2020-12 first (the runner's default) and then as draft-07, since schemas
// in the wild declare neither as often as both; draft is the one that
// compiled (Draft2020 or Draft7), or the declared one. The fallback mirrors
// runner.ValidateInput's (runner/schema.go compileSchema), which keeps its
// compiled schema to itself: the form needs the compiler to reach
// subschemas (if, oneOf branches) by location.
func compileSchema(raw json.RawMessage) (*compiled, string, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, "", fmt.Errorf("schema is not JSON: %w", err)
	}
	runner.DropNullKeywords(doc)
	sum := sha256.Sum256(raw)
	url := "modbay:///form/" + hex.EncodeToString(sum[:8]) + ".json"
	try := func(d *jsonschema.Draft) (*compiled, error) {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(d)
		c.UseLoader(runner.RefusingLoader{})
		if err := c.AddResource(url, doc); err != nil {
			return nil, unnamed(err, url)
		}
		sch, err := c.Compile(url)
		if err != nil {
			return nil, unnamed(err, url)
		}
		return &compiled{c: c, url: url, subs: map[string]*jsonschema.Schema{"": sch}}, nil
	}
	cs, err := try(jsonschema.Draft2020)
	if declared := draftOf(doc); declared != "" {
		return cs, declared, err
	}
	if err == nil {
		return cs, Draft2020, nil
	}
	if cs7, err7 := try(jsonschema.Draft7); err7 == nil {
		return cs7, Draft7, nil
	}
	return nil, "", err
}

// unnamed returns err with the internal URL the compiler knows the schema
// by said as "the schema", as runner.ValidateInput does: the URL means
// nothing to the person reading the note.
func unnamed(err error, url string) error {
	msg := strings.ReplaceAll(err.Error(), `"`+url+`#"`, "the schema")
	return errors.New(strings.ReplaceAll(msg, url, "the schema"))
}

// matches reports whether value is valid against the subschema at loc; a
// subschema that does not compile matches nothing.
func (c *compiled) matches(loc string, value json.RawMessage) bool {
	if c == nil {
		return false
	}
	sch, ok := c.subs[loc]
	if !ok {
		var err error
		sch, err = c.c.Compile(c.url + "#" + loc)
		if err != nil {
			sch = nil
		}
		c.subs[loc] = sch
	}
	if sch == nil {
		return false
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return false
	}
	return sch.Validate(inst) == nil
}

// withDraft returns raw with "$schema" set to draft at the front, for a
// document that declares none and only compiles under draft (so every
// validator that reads it picks the same draft).
func withDraft(raw json.RawMessage, draft string) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) < 2 || t[0] != '{' {
		return raw
	}
	k, _ := json.Marshal(draft)
	rest := bytes.TrimSpace(t[1:])
	out := []byte(`{"$schema":` + string(k))
	if len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...)
}
