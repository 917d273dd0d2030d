package cli

import (
	"encoding/json"
	"testing"
)

// TestElicitFieldsReadTheSchemaDoc: invoke asks for the fields in the
// schema's order, with a $ref'd field's type and a type list of one.
func TestElicitFieldsReadTheSchemaDoc(t *testing.T) {
	fs := elicitFields(json.RawMessage(`{"type":"object","required":["zone"],"properties":{
		"zone":{"$ref":"#/$defs/zone"},"count":{"type":["integer"]},"agree":{"type":"boolean"}},
		"$defs":{"zone":{"type":"string","enum":["eu","us"],"title":"Zone"}}}`))
	var got []string
	for _, f := range fs {
		got = append(got, f.name+":"+f.kind()+":"+f.title)
	}
	want := []string{"zone:choice:Zone", "count:integer:", "agree:boolean:"}
	if len(got) != len(want) {
		t.Fatalf("fields %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d %s, want %s", i, got[i], want[i])
		}
	}
	if !fs[0].required || fs[1].required {
		t.Errorf("required %v %v", fs[0].required, fs[1].required)
	}
}
