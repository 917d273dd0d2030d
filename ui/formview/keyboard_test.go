package formview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"modbay/conform"
	"modbay/examples"
	"modbay/internal/jsonptr"
	"modbay/internal/testcorpus"
	modschema "modbay/schema"
	"modbay/ui/form"
	"modbay/ui/internal/uitest"
)

// keyboardNeedsJSON are the schemas the keyboard filler below cannot fill,
// with why; each is a schema a person fills in JSON mode.
var keyboardNeedsJSON = map[string]string{
	"forms/readonly-no-default": "a required read-only field without a default",
}

// TestEverySchemaFilledByKeyboard fills every request schema of the test
// corpora (the shared corpus, facet's describe, the examples', the
// cockpit's fixtures, the form cases) by keys alone, the way a person would: tab from field
// to field, type text, space for a toggle, → for a choice or a variant,
// ctrl+a for an item, until the form sends check's minimal valid input
// with no problem. A schema it cannot fill is listed in keyboardNeedsJSON.
func TestEverySchemaFilledByKeyboard(t *testing.T) {
	schemas := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(testcorpus.Dir(t, "schemas"), "*.json"))
	cases, _ := filepath.Glob(filepath.Join("testdata", "forms", "*.json"))
	for _, p := range append(files, cases...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		prefix := "corpus/"
		if strings.Contains(p, "testdata") {
			prefix = "forms/"
		}
		schemas[prefix+strings.TrimSuffix(filepath.Base(p), ".json")] = b
	}
	for _, name := range uitest.SchemaNames {
		schemas["fixtures/"+name] = uitest.Schema(t, name)
	}
	facet, err := os.ReadFile(testcorpus.Dir(t, "modules", "facet", "fixtures", "module", "describe.json"))
	if err != nil {
		t.Fatal(err)
	}
	describes := map[string][]byte{"facet": facet}
	for _, id := range examples.IDs() {
		describes["examples/"+id] = examples.Describe(id)
	}
	for who, b := range describes {
		var env struct {
			Result struct {
				RequestSchemas map[string]json.RawMessage `json:"request_schemas"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatalf("%s: %v", who, err)
		}
		for k, v := range env.Result.RequestSchemas {
			schemas[who+"/"+k] = v
		}
	}
	var failed []string
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range schemas {
			if !yield(k) {
				return
			}
		}
	}) {
		why := fillByKeyboard(t, schemas[name])
		_, listed := keyboardNeedsJSON[name]
		switch {
		case why != "" && !listed:
			t.Errorf("%s: %s", name, why)
		case why == "" && listed:
			t.Errorf("%s fills by keyboard now: take it off keyboardNeedsJSON", name)
		}
		if why != "" {
			failed = append(failed, name+": "+why)
		}
	}
	t.Logf("%d schemas filled by keyboard; needing JSON mode: %d\n%s", len(schemas)-len(failed), len(failed), strings.Join(failed, "\n"))
}

// maxKeysPerSchema bounds one fill: a schema the filler cannot finish
// stops there.
const maxKeysPerSchema = 3000

// fillByKeyboard fills raw's form by keys towards check's minimal valid
// input and returns why it could not ("" when it did).
func fillByKeyboard(t *testing.T, raw []byte) string {
	h, err := modschema.Compile(raw)
	if err != nil {
		return err.Error()
	}
	var target json.RawMessage
	for _, c := range conform.Generate(h) {
		if c.Kind == conform.KindMinimal && c.Valid {
			target = c.Input
		}
	}
	if target == nil {
		return "" // check makes no valid input: nothing to aim at
	}
	var want any
	_ = json.Unmarshal(target, &want)
	m := newSchemaForm(t, string(raw), 100, 40)
	tries := map[string]int{}
	for range maxKeysPerSchema {
		if same(m.Value(), want) && m.Problems().Count() == 0 {
			return ""
		}
		n := m.FocusedNode()
		if n == nil {
			return "no field to focus"
		}
		ptr := n.Pointer()
		goal, ok := at(want, ptr)
		have, _ := at(decode(m.Value()), ptr)
		if !ok || (same2(have, goal) && n.Kind != form.KindArray) || tries[ptr] > 12 {
			keys(m, "tab")
			continue
		}
		tries[ptr]++
		switch n.Kind {
		case form.KindString, form.KindNumber, form.KindInteger, form.KindJSON:
			text := ""
			if s, isStr := goal.(string); isStr && n.Kind != form.KindJSON {
				text = s
			} else {
				b, _ := json.Marshal(goal)
				text = string(b)
			}
			if n.Text != "" {
				keys(m, "ctrl+x")
			}
			if text == "" {
				keys(m, "ctrl+r")
			} else {
				feed(m, uitest.Type(text)...)
			}
			keys(m, "tab")
		case form.KindBoolean:
			keys(m, "space")
		case form.KindEnum:
			keys(m, "right")
		case form.KindUnion:
			// The chosen branch is filled from inside; another is picked
			// only when what it sends cannot become the goal.
			if have == nil || prefixOf(have, goal) {
				keys(m, "tab")
			} else {
				keys(m, "right")
			}
		case form.KindArray:
			if g, isList := goal.([]any); isList && len(n.Children) < len(g) {
				keys(m, "ctrl+a")
			} else {
				keys(m, "tab")
			}
		case form.KindNull:
			keys(m, "ctrl+n")
		default:
			keys(m, "tab")
		}
	}
	v, _ := json.Marshal(decode(m.Value()))
	return "sends " + string(v) + ", not " + string(target)
}

func decode(raw json.RawMessage) any {
	var v any
	_ = json.Unmarshal(raw, &v)
	return v
}

// at is the value at JSON pointer ptr in v.
func at(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = jsonptr.Unescape(tok)
		switch x := v.(type) {
		case map[string]any:
			c, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = c
		case []any:
			i := -1
			if err := json.Unmarshal([]byte(tok), &i); err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func same(raw json.RawMessage, want any) bool { return same2(decode(raw), want) }

func same2(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// prefixOf reports whether a is part of b: b's value with fewer members
// or items filled (an empty slot is null).
func prefixOf(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return true // an empty slot, sent as null until filled
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !prefixOf(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) > len(y) {
			return false
		}
		for i := range x {
			if !prefixOf(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return same2(a, b)
}
