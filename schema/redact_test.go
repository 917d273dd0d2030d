package schema

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestRedact(t *testing.T) {
	const doc = `{
		"type": "object",
		"$defs": {"secret": {"type": "string", "writeOnly": true}},
		"properties": {
			"user": {"type": "string"},
			"password": {"type": "string", "format": "password"},
			"token": {"$ref": "#/$defs/secret"},
			"nested": {"type": "object", "properties": {"key": {"writeOnly": true}, "name": {}}},
			"list": {"type": "array", "items": {"type": "object", "properties": {"pin": {"allOf": [{"writeOnly": true}]}}}},
			"extra": {"type": "object", "additionalProperties": {"format": "password"}}
		}
	}`
	cases := []struct {
		name, in, want string
		paths          []string
	}{
		{"plain", `{"user":"ann"}`, `{"user":"ann"}`, nil},
		{"format password", `{"user":"ann","password":"hunter2"}`, `{"password":"[redacted]","user":"ann"}`, []string{"/password"}},
		{"ref writeOnly", `{"token":"abc"}`, `{"token":"[redacted]"}`, []string{"/token"}},
		{"nested", `{"nested":{"key":"k","name":"n"}}`, `{"nested":{"key":"[redacted]","name":"n"}}`, []string{"/nested/key"}},
		{"array allOf", `{"list":[{"pin":1},{"pin":2}]}`, `{"list":[{"pin":"[redacted]"},{"pin":"[redacted]"}]}`, []string{"/list/0/pin", "/list/1/pin"}},
		{"additional", `{"extra":{"a/b":"x"}}`, `{"extra":{"a/b":"[redacted]"}}`, []string{"/extra/a~1b"}},
		{"not json", `{`, `{`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, paths := Redact(json.RawMessage(doc), json.RawMessage(c.in))
			if string(got) != c.want {
				t.Errorf("Redact = %s, want %s", got, c.want)
			}
			if !slices.Equal(paths, c.paths) {
				t.Errorf("paths = %q, want %q", paths, c.paths)
			}
		})
	}
}

func TestRedactSelfReference(t *testing.T) {
	doc := `{"$ref": "#", "properties": {"p": {"writeOnly": true}}}`
	got, paths := Redact(json.RawMessage(doc), json.RawMessage(`{"p":"s"}`))
	if string(got) != `{"p":"[redacted]"}` || len(paths) != 1 {
		t.Errorf("Redact = %s %q", got, paths)
	}
}

func TestRedactBranchesReferringBack(t *testing.T) {
	// Two references back to the root in every allOf: without taking each
	// subschema once, the expansion would double at every level.
	doc := `{"allOf": [{"$ref": "#"}, {"$ref": "#"}], "properties": {"p": {"format": "password"}, "q": {"$ref": "#"}}}`
	got, paths := Redact(json.RawMessage(doc), json.RawMessage(`{"q":{"q":{"p":"s"}}}`))
	if string(got) != `{"q":{"q":{"p":"[redacted]"}}}` || len(paths) != 1 {
		t.Errorf("Redact = %s %q", got, paths)
	}
}
