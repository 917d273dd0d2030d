package form_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"modbay/conform"
	"modbay/examples"
	"modbay/schema"
	"modbay/ui/form"
	"modbay/ui/internal/uitest"
)

// needsJSONMode are the schemas whose valid inputs a person cannot give
// through widgets alone, each with why (kept short and checked: a schema
// that no longer needs JSON mode fails the test until it is taken off).
var needsJSONMode = map[string]string{
	"forms/readonly-no-default": "a required read-only field without a default: only JSON mode can give it",
}

// TestEverySchemaFillsByWidgets: for every request schema of the corpora
// (the shared corpus, facet's describe, the examples', the cockpit's
// fixtures, the form cases under ui/formview/testdata/forms), the valid inputs check generates (minimal and full) load
// into the form with every value in a widget a person fills by keyboard
// (text, toggle, choice, list, entry; a JSON editor only for a value the
// schema leaves free), send the same
// value back, and leave no problem.
func TestEverySchemaFillsByWidgets(t *testing.T) {
	all := corpus(t)
	for _, id := range examples.IDs() {
		var env struct {
			Result struct {
				RequestSchemas map[string]json.RawMessage `json:"request_schemas"`
			} `json:"result"`
		}
		if err := json.Unmarshal(examples.Describe(id), &env); err != nil {
			t.Fatalf("example %s: %v", id, err)
		}
		for k, v := range env.Result.RequestSchemas {
			all["examples/"+id+"/"+k] = v
		}
	}
	for _, name := range uitest.SchemaNames {
		all["fixtures/"+name] = uitest.Schema(t, name)
	}
	cases, _ := filepath.Glob(filepath.Join("..", "formview", "testdata", "forms", "*.json"))
	for _, p := range cases {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all["forms/"+strings.TrimSuffix(filepath.Base(p), ".json")] = b
	}
	var needed []string
	for _, name := range sortedKeys(all) {
		why := fillByWidgets(all[name])
		if why != "" {
			needed = append(needed, name+": "+why)
		}
		want, listed := needsJSONMode[name]
		switch {
		case why != "" && !listed:
			t.Errorf("%s needs JSON mode: %s", name, why)
		case why == "" && listed:
			t.Errorf("%s fills by widgets now: take it off needsJSONMode (%s)", name, want)
		}
	}
	t.Logf("%d schemas; needing JSON mode: %d\n%s", len(all), len(needed), strings.Join(needed, "\n"))
}

// fillByWidgets loads check's valid cases of raw into a form and returns
// why one cannot be given through widgets ("" when all can).
func fillByWidgets(raw json.RawMessage) string {
	h, err := schema.Compile(raw)
	if err != nil {
		return "does not compile: " + err.Error()
	}
	for _, c := range conform.Generate(h) {
		if !c.Valid || (c.Kind != conform.KindMinimal && c.Kind != conform.KindFull) {
			continue
		}
		f, err := form.Build(raw)
		if err != nil {
			return err.Error()
		}
		if err := f.SetValue(c.Input); err != nil {
			return c.Name + ": " + err.Error()
		}
		var jsonAt []string
		var walk func(n *form.Node)
		walk = func(n *form.Node) {
			// A JSON field is the widget of a value the schema leaves free
			// (items or a property without a schema); anything else held as
			// JSON text did not fit its widget.
			if (n.Raw || (n.Kind == form.KindJSON && n.Schema != nil && n.Schema.IsStructural())) && n != f.Root {
				jsonAt = append(jsonAt, n.Pointer())
			}
			if n.ReadOnly && n.Held != nil {
				jsonAt = append(jsonAt, n.Pointer()+" (read-only: held from JSON mode)")
			}
			for _, c := range n.Children {
				walk(c)
			}
			for _, e := range n.Entries {
				walk(e)
			}
		}
		walk(f.Root)
		if f.Root.Kind == form.KindJSON || f.Root.Raw {
			jsonAt = append(jsonAt, "(the whole input)")
		}
		if len(jsonAt) > 0 {
			slices.Sort(jsonAt)
			return fmt.Sprintf("%s: JSON editor at %s", c.Name, strings.Join(jsonAt, ", "))
		}
		v, p := f.Check(schema.ValidateInput)
		if p.Count() > 0 {
			return fmt.Sprintf("%s: %d problems (%v %v)", c.Name, p.Count(), p.Root, p.Fields)
		}
		var a, b any
		if json.Unmarshal(v, &a) != nil || json.Unmarshal(c.Input, &b) != nil || fmt.Sprint(a) != fmt.Sprint(b) {
			return fmt.Sprintf("%s: sends %s for %s", c.Name, v, c.Input)
		}
	}
	return ""
}
