package form_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"modbay/internal/testcorpus"
	"modbay/schema"
	"modbay/ui/form"
)

// corpus returns every real request schema by name: the shared corpus's
// schemas/ (SOURCES.tsv there says where each is from) and the request
// schemas of a real module's describe output (facet's). Without the corpus
// it skips t (fails it under CI).
func corpus(t testing.TB) map[string]json.RawMessage {
	t.Helper()
	out := map[string]json.RawMessage{}
	dir := testcorpus.Dir(t, "schemas")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus schemas in %s: %v", dir, err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".json")] = b
	}
	b, err := os.ReadFile(testcorpus.Dir(t, "modules", "facet", "fixtures", "module", "describe.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Result struct {
			RequestSchemas map[string]json.RawMessage `json:"request_schemas"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	for k, v := range d.Result.RequestSchemas {
		out["facet/"+k] = v
	}
	return out
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestCorpusBuildsAndFills builds a form for every real schema, fills its
// required fields through the form model only (as a person would: typing
// text, picking choices, adding items) and checks the value validates.
func TestCorpusBuildsAndFills(t *testing.T) {
	schemas := corpus(t)
	for _, name := range sortedKeys(schemas) {
		t.Run(name, func(t *testing.T) {
			f, err := form.Build(schemas[name])
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			if len(f.Rows()) == 0 {
				t.Fatal("no rows")
			}
			Fill(t, f)
			v, p := f.Check(schema.ValidateInput)
			if p.Count() != 0 {
				t.Fatalf("filled value %s has problems %#v", v, p)
			}
			errs, err := schema.ValidateInput(f.Schema, v)
			if err != nil || len(errs) > 0 {
				t.Fatalf("value %s: %v %v", v, err, errs)
			}
		})
	}
}

// Fill fills every required, empty node of f with a value its constraints
// accept, through the model's own operations, until nothing required is
// left empty (conditionals may require more as values arrive).
func Fill(t testing.TB, f *form.Form) {
	t.Helper()
	for round := 0; round < 20; round++ {
		filled := false
		for _, r := range f.Rows() {
			if fillNode(f, r.Node) {
				filled = true
				f.Changed(r.Node)
				break // rows may have changed
			}
		}
		if !filled {
			_, local := f.Value()
			if len(local) == 0 {
				// A root anyOf of {"required": [...]} branches: satisfy the
				// first by filling its names.
				v, p := f.Check(schema.ValidateInput)
				if p.Count() == 0 || !fillRootAnyOf(f, v) {
					return
				}
				continue
			}
			return
		}
	}
}

// fillRootAnyOf fills the first empty optional field the validator says
// is required (a root anyOf of {"required": [...]} branches: any one will
// do).
func fillRootAnyOf(f *form.Form, _ json.RawMessage) bool {
	if sets := f.RequiredSets(f.Root); len(sets) > 0 {
		// The form words such a union as one "set one of" problem: fill
		// the first set's names.
		filled := false
		for _, name := range sets[0] {
			n, rest := f.Find("/" + name)
			if rest != "" || n.Required {
				continue
			}
			n.Required = true
			ok := fillNode(f, n)
			n.Required = false
			if ok {
				f.Changed(n)
				filled = true
			}
		}
		if filled {
			return true
		}
	}
	_, p := f.Check(schema.ValidateInput)
	ptrs := make([]string, 0, len(p.Fields))
	for ptr := range p.Fields {
		ptrs = append(ptrs, ptr)
	}
	sort.Strings(ptrs)
	for _, ptr := range ptrs {
		n, rest := f.Find(ptr)
		if rest != "" || n.Required {
			continue
		}
		n.Required = true
		ok := fillNode(f, n)
		n.Required = false
		if ok {
			f.Changed(n)
			return true
		}
	}
	return false
}

// fillNode gives one required, empty node a value; false when it needs
// none.
func fillNode(f *form.Form, n *form.Node) bool {
	if !n.Required || n.ReadOnly || n.Null {
		return false
	}
	s := n.Schema
	switch n.Kind {
	case form.KindString:
		if n.Text != "" {
			return false
		}
		n.Text = sampleString(s)
		return true
	case form.KindNumber, form.KindInteger:
		if n.Text != "" {
			return false
		}
		n.Text = sampleNumber(s, n.Kind == form.KindInteger)
		return true
	case form.KindEnum:
		if n.Choice >= 0 {
			return false
		}
		n.Cycle(1)
		return true
	case form.KindMulti:
		if slices.Contains(n.Checked, true) || s.MinItems == nil || *s.MinItems == 0 {
			return false
		}
		for i := 0; i < *s.MinItems && i < len(n.Checked); i++ {
			n.Checked[i] = true
		}
		return true
	case form.KindArray:
		if s.MinItems != nil && len(n.Children) < *s.MinItems {
			f.Add(n)
			return true
		}
	case form.KindUnion:
		if n.Variant < 0 {
			f.SetVariant(n, 0)
			return true
		}
	case form.KindObject:
		if n.Collapsed && n.Parent != nil {
			f.Expand(n)
			return true
		}
	case form.KindEntry:
		if n.Key == "" {
			n.Key = "k"
			return true
		}
	case form.KindJSON:
		if strings.TrimSpace(n.Text) == "" {
			n.Text = "{}"
			if len(s.Types) == 1 && s.Types[0] == "array" {
				n.Text = "[]"
			}
			return true
		}
	}
	return false
}

// sampleString returns a string meeting s's format, pattern and lengths.
func sampleString(s *form.Schema) string {
	switch s.Format {
	case "date":
		return "2024-02-29"
	case "date-time":
		return "2024-02-29T12:00:00Z"
	case "time":
		return "12:00:00Z"
	case "email":
		return "a@example.com"
	case "uri":
		return "https://example.com/x"
	case "uuid":
		return "123e4567-e89b-12d3-a456-426614174000"
	case "hostname":
		return "example.com"
	case "ipv4":
		return "203.0.113.7"
	case "ipv6":
		return "2001:db8::1"
	}
	candidates := []string{"sample", "abcdefghij", "1h", "c49541c747cb4d8aa3efb70ca5aba243", "a", "x1"}
	for _, c := range candidates {
		if s.Pattern != "" {
			re, err := regexp.Compile(s.Pattern)
			if err != nil || !re.MatchString(c) {
				continue
			}
		}
		if s.MinLength != nil && len(c) < *s.MinLength || s.MaxLength != nil && len(c) > *s.MaxLength {
			continue
		}
		return c
	}
	return "sample"
}

// sampleNumber returns a number inside s's bounds.
func sampleNumber(s *form.Schema, integer bool) string {
	switch {
	case s.Minimum != "":
		if s.MultipleOf != "" && s.Minimum != "0" {
			return s.MultipleOf
		}
		return s.Minimum
	case s.ExclusiveMinimum != "":
		if s.ExclusiveMaximum == "1" {
			return "0.5"
		}
		if integer || s.ExclusiveMinimum != "0" {
			return "1" + strings.Repeat("0", len(strings.TrimLeft(s.ExclusiveMinimum, "-")))
		}
		return "0.5"
	case s.Maximum != "":
		return s.Maximum
	}
	return "1"
}
