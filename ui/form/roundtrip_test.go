package form_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"modbay/internal/jsonptr"
	"modbay/schema"
	"modbay/ui/form"
	"modbay/ui/internal/uitest"
)

// The round-trip property: any JSON value loaded into a
// form (SetValue, as leaving JSON mode does) and built back (Value) is the
// same JSON value: object key order may differ, numbers compare by exact
// decimal value, and nothing is lost or added. It is checked over every
// request schema we have (our fixtures, testdata/roundtrip.json and the
// corpus) with values generated from each schema: valid ones (filled as a
// person would, every branch of every union in turn) and invalid ones
// (every place in them replaced by empty strings, empty objects and
// arrays, nulls, unicode, big and exact numbers, nested maps, empty keys
// and values of the wrong type).

// generated is one value to load, with the class it was made for.
type generated struct {
	class string
	value json.RawMessage
}

// edges are the values put at every place of a filled value, by class.
var edges = []generated{
	{"empty string", json.RawMessage(`""`)},
	{"blank string", json.RawMessage(`" "`)},
	{"empty object", json.RawMessage(`{}`)},
	{"empty array", json.RawMessage(`[]`)},
	{"null", json.RawMessage(`null`)},
	{"unicode", json.RawMessage(`"Grüße 👨‍👩‍👧 中文 \u0000\t\n\u202e"`)},
	{"numeric string", json.RawMessage(`"007"`)},
	{"big integer", json.RawMessage(`123456789012345678901234567890`)},
	{"big integer", json.RawMessage(`9007199254740993`)},
	{"exact decimal", json.RawMessage(`0.1000000000000000000000000001`)},
	{"exact decimal", json.RawMessage(`1.0`)},
	{"huge number", json.RawMessage(`1e999`)},
	{"nested map", json.RawMessage(`{"a":{"b":{"c":[1,"x",{"d":null,"e":""}]}},"f":[]}`)},
	{"empty key", json.RawMessage(`{"":""}`)},
	{"wrong type", json.RawMessage(`true`)},
	{"wrong type", json.RawMessage(`"text"`)},
	{"wrong type", json.RawMessage(`-42`)},
	{"wrong type", json.RawMessage(`[1,"a",null,{}]`)},
}

// maxPerSchema bounds the values generated for one schema (the corpus's
// largest would give several thousand; a stride keeps the places spread).
const maxPerSchema = 800

// maxDepth bounds how deep generation fills and mutates (recursive schemas
// have no bottom).
const maxDepth = 7

// generate returns the values to try for a schema: {}, the value Fill
// gives (required fields only), a full value (every field), one per branch
// of every union, and every place of those with each edge value.
func generate(t testing.TB, raw json.RawMessage) []generated {
	t.Helper()
	var bases []generated
	seen := map[string]bool{}
	addBase := func(class string, v json.RawMessage) {
		if v != nil && !seen[string(v)] {
			seen[string(v)] = true
			bases = append(bases, generated{class, bytes.Clone(v)})
		}
	}
	addBase("empty object", json.RawMessage(`{}`))
	f, err := form.Build(raw)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	Fill(t, f)
	v, _ := f.Value()
	addBase("filled", v)
	full, err := form.Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	fillAll(full)
	v, _ = full.Value()
	addBase("full", v)
	// Every branch of every union, one union at a time, in a full form.
	for _, r := range full.Rows() {
		u := r.Node
		if u.Kind != form.KindUnion {
			continue
		}
		for i := range u.Variants {
			g, _ := form.Build(raw)
			fillAll(g)
			n, rest := g.Find(u.Pointer())
			if rest != "" || n.Kind != form.KindUnion {
				continue
			}
			g.SetVariant(n, i)
			fillAll(g)
			v, _ := g.Value()
			addBase("union branch", v)
		}
	}
	// Places: every pointer in the bases and every field of the full form.
	places := map[string]bool{}
	for _, b := range bases {
		var x any
		if decode(b.value, &x) == nil {
			walkPointers(x, "", func(p string) { places[p] = true })
		}
	}
	for _, r := range full.Rows() {
		places[r.Node.Pointer()] = true
	}
	ptrs := make([]string, 0, len(places))
	for p := range places {
		if p != "" && strings.Count(p, "/") <= maxDepth {
			ptrs = append(ptrs, p)
		}
	}
	sort.Strings(ptrs)
	out := append([]generated(nil), bases...)
	var muts []generated
	for _, b := range bases[1:] {
		for _, p := range ptrs {
			for _, e := range edges {
				if m, ok := setAt(b.value, p, e.value); ok && !seen[string(m)] {
					seen[string(m)] = true
					muts = append(muts, generated{e.class, m})
				}
			}
		}
	}
	// Whole values that are not objects at all.
	for _, e := range edges {
		if !seen[string(e.value)] {
			seen[string(e.value)] = true
			muts = append(muts, e)
		}
	}
	if len(muts) > maxPerSchema {
		stride := float64(len(muts)) / maxPerSchema
		var kept []generated
		for i := 0.0; int(i) < len(muts); i += stride {
			kept = append(kept, muts[int(i)])
		}
		muts = kept
	}
	return append(out, muts...)
}

// fillAll fills every field of f, optional ones too, to maxDepth.
func fillAll(f *form.Form) {
	for budget := 400; budget > 0; budget-- {
		filled := false
		for _, r := range f.Rows() {
			n := r.Node
			if strings.Count(n.Pointer(), "/") > maxDepth || n.ReadOnly {
				continue
			}
			req := n.Required
			n.Required = true
			ok := fillNode(f, n)
			if !ok && n.Kind == form.KindArray && len(n.Children) == 0 {
				ok = f.Add(n) != nil
			}
			if !ok && n.Kind == form.KindObject && n.HasMap && len(n.Entries) == 0 && len(n.Children) == 0 {
				if e := f.Add(n); e != nil {
					e.Key, ok = "k", true
				}
			}
			if !ok && n.Kind == form.KindBoolean && n.Bool == form.BoolUnset {
				n.Toggle()
				ok = true
			}
			n.Required = req
			if ok {
				f.Changed(n)
				filled = true
				break
			}
		}
		if !filled {
			return
		}
	}
}

// decode reads JSON keeping numbers exact.
func decode(raw []byte, v *any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return d.Decode(v)
}

// walkPointers calls fn with the pointer of every value inside x.
func walkPointers(x any, ptr string, fn func(string)) {
	fn(ptr)
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			walkPointers(v, ptr+"/"+jsonptr.Escape(k), fn)
		}
	case []any:
		for i, v := range x {
			walkPointers(v, ptr+"/"+strconv.Itoa(i), fn)
		}
	}
}

// setAt returns raw with the value at ptr replaced by (or, in an object,
// set to) v; false when ptr's parent is not in raw.
func setAt(raw json.RawMessage, ptr string, v json.RawMessage) (json.RawMessage, bool) {
	var root any
	if decode(raw, &root) != nil {
		return nil, false
	}
	var val any
	if decode(v, &val) != nil {
		return nil, false
	}
	toks := strings.Split(ptr[1:], "/")
	for i := range toks {
		toks[i] = jsonptr.Unescape(toks[i])
	}
	cur := root
	for i, tok := range toks {
		last := i == len(toks)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[tok] = val
			} else if cur = c[tok]; cur == nil {
				return nil, false
			}
		case []any:
			k, err := strconv.Atoi(tok)
			if err != nil || k < 0 || k >= len(c) {
				return nil, false
			}
			if last {
				c[k] = val
			} else {
				cur = c[k]
			}
		default:
			return nil, false
		}
	}
	out, err := json.Marshal(root)
	return out, err == nil
}

// sameJSON returns "" when a and b are the same JSON value (object key
// order aside, numbers by exact decimal value), else where they differ.
func sameJSON(a, b []byte) string {
	var x, y any
	if err := decode(a, &x); err != nil {
		return "first is not JSON: " + err.Error()
	}
	if err := decode(b, &y); err != nil {
		return "second is not JSON: " + err.Error()
	}
	return sameValue(x, y, "")
}

func sameValue(x, y any, ptr string) string {
	switch x := x.(type) {
	case map[string]any:
		ym, ok := y.(map[string]any)
		if !ok {
			return fmt.Sprintf("at %q: object became %s", ptr, brief(y))
		}
		for k, v := range x {
			w, ok := ym[k]
			if !ok {
				return fmt.Sprintf("at %q: key %q lost", ptr, k)
			}
			if d := sameValue(v, w, ptr+"/"+k); d != "" {
				return d
			}
		}
		for k := range ym {
			if _, ok := x[k]; !ok {
				return fmt.Sprintf("at %q: key %q added", ptr, k)
			}
		}
		return ""
	case []any:
		ya, ok := y.([]any)
		if !ok || len(ya) != len(x) {
			return fmt.Sprintf("at %q: list of %d became %s", ptr, len(x), brief(y))
		}
		for i := range x {
			if d := sameValue(x[i], ya[i], ptr+"/"+strconv.Itoa(i)); d != "" {
				return d
			}
		}
		return ""
	case json.Number:
		yn, ok := y.(json.Number)
		if !ok {
			return fmt.Sprintf("at %q: number %s became %s", ptr, x, brief(y))
		}
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(yn))
		if !okx || !oky || rx.Cmp(ry) != 0 {
			return fmt.Sprintf("at %q: number %s became %s", ptr, x, yn)
		}
		return ""
	}
	if x != y {
		return fmt.Sprintf("at %q: %s became %s", ptr, brief(x), brief(y))
	}
	return ""
}

// clip shortens a value for a failure line.
func clip(b []byte) string {
	if len(b) > 160 {
		return string(b[:160]) + "…"
	}
	return string(b)
}

func brief(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}

// roundTrip loads v into f and returns the value f builds back.
type roundTrip func(f *form.Form, v json.RawMessage) (json.RawMessage, error)

// formRoundTrip is the form's own: SetValue then Value, twice (JSON mode,
// the form, JSON mode again, the form again).
func formRoundTrip(f *form.Form, v json.RawMessage) (json.RawMessage, error) {
	if err := f.SetValue(v); err != nil {
		return nil, err
	}
	got, _ := f.Value()
	if err := f.SetValue(got); err != nil {
		return nil, err
	}
	again, _ := f.Value()
	if d := sameJSON(got, again); d != "" {
		return again, fmt.Errorf("second round trip of %s: %s", got, d)
	}
	return got, nil
}

// tally counts the values tried, by class and verdict.
type tally map[string]int

func (t tally) String() string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %d; ", k, t[k])
	}
	return strings.TrimSuffix(b.String(), "; ")
}

// checkRoundTrips tries every generated value of raw with rt, counting
// into tried, and returns the differences found.
func checkRoundTrips(t testing.TB, raw json.RawMessage, rt roundTrip, tried tally, verdict bool) []string {
	t.Helper()
	f, err := form.Build(raw)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	var diffs []string
	for _, g := range generate(t, raw) {
		tried[g.class]++
		valid := false
		if errs, err := schema.ValidateInput(f.Schema, g.value); err == nil && len(errs) == 0 && len(f.Schema) > 0 {
			tried["(valid)"]++
			valid = true
		} else {
			tried["(invalid)"]++
		}
		if verdict {
			if d := oneVerdict(f, g.value, valid); d != "" {
				diffs = append(diffs, fmt.Sprintf("%s: %s: %s", g.class, d, clip(g.value)))
			}
		}
		got, err := rt(f, g.value)
		if err != nil {
			diffs = append(diffs, fmt.Sprintf("%s %s: %v", g.class, clip(g.value), err))
			continue
		}
		if valid {
			// A valid value lands in widgets: a union picks the branch
			// that holds it, never one that keeps it as JSON text.
			if p := keptAsJSON(f.Root); p != "" && f.Root.Kind != form.KindJSON {
				diffs = append(diffs, fmt.Sprintf("%s: valid value kept as JSON text at %q: %s", g.class, p, clip(g.value)))
			}
		}
		if d := sameJSON(g.value, got); d != "" {
			diffs = append(diffs, fmt.Sprintf("%s: %s (loaded %s → built %s)", g.class, d, clip(g.value), clip(got)))
		}
	}
	return diffs
}

// oneVerdict checks the one-verdict property for v: JSON
// mode (CheckValue) lists the same problems as the form once v is loaded
// (SetValue, then Check), and the form finds none exactly when the
// validator the runner and invoke use finds none. It returns "" when that
// holds.
func oneVerdict(f *form.Form, v json.RawMessage, valid bool) string {
	inJSON, err := f.CheckValue(v, schema.ValidateInput)
	if err != nil {
		return err.Error()
	}
	if err := f.SetValue(v); err != nil {
		return err.Error()
	}
	_, inForm := f.Check(schema.ValidateInput)
	a, b := inJSON.Lines(), inForm.Lines()
	sort.Strings(a)
	sort.Strings(b)
	if strings.Join(a, "\n") != strings.Join(b, "\n") || inJSON.Hidden != inForm.Hidden {
		return fmt.Sprintf("JSON mode says %q (+%d hidden), the form %q (+%d hidden)", a, inJSON.Hidden, b, inForm.Hidden)
	}
	if len(f.Schema) > 0 && valid != (inForm.Count() == 0) {
		return fmt.Sprintf("the validator says valid=%v, the form counts %d problems: %q", valid, inForm.Count(), b)
	}
	return ""
}

// keptAsJSON returns the pointer of the first union variant under n that
// keeps its value as JSON text, "" when none does.
func keptAsJSON(n *form.Node) string {
	if n.Kind == form.KindUnion && len(n.Children) > 0 && n.Children[0].Raw {
		return n.Pointer()
	}
	for _, c := range append(append([]*form.Node(nil), n.Children...), n.Entries...) {
		if p := keptAsJSON(c); p != "" {
			return p
		}
	}
	return ""
}

// ownSchemas are the project's request schemas: the UI fixtures and
// testdata/roundtrip.json.
func ownSchemas(t testing.TB) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, name := range uitest.SchemaNames {
		out[name] = uitest.Schema(t, name)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out["testdata/"+filepath.Base(p)] = b
	}
	return out
}

func runRoundTrips(t *testing.T, schemas map[string]json.RawMessage) {
	total := tally{}
	for _, name := range sortedKeys(schemas) {
		t.Run(name, func(t *testing.T) {
			tried := tally{}
			diffs := checkRoundTrips(t, schemas[name], formRoundTrip, tried, true)
			for k, v := range tried {
				total[k] += v
			}
			for i, d := range diffs {
				if i == 12 {
					t.Errorf("… and %d more", len(diffs)-i)
					break
				}
				t.Error(d)
			}
		})
	}
	t.Logf("values tried over %d schemas: %s", len(schemas), total)
}

// TestRoundTripOwnSchemas is the property over our fixtures (it runs on a
// clone).
func TestRoundTripOwnSchemas(t *testing.T) { runRoundTrips(t, ownSchemas(t)) }

// TestRoundTripCorpus is the property over every corpus schema (it skips
// without the corpus, fails under CI).
func TestRoundTripCorpus(t *testing.T) { runRoundTrips(t, corpus(t)) }

// TestRoundTripCanFail runs the same check on round trips that lose
// something, to show it catches them: one reads numbers as float64 (big
// integers lose digits, 1e999 does not decode), one drops empty strings.
func TestRoundTripCanFail(t *testing.T) {
	raw := ownSchemas(t)["testdata/roundtrip.json"]
	floats := func(f *form.Form, v json.RawMessage) (json.RawMessage, error) {
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return nil, err
		}
		return json.Marshal(x)
	}
	dropEmpty := func(f *form.Form, v json.RawMessage) (json.RawMessage, error) {
		return bytes.ReplaceAll(v, []byte(`""`), []byte(`null`)), nil
	}
	for name, rt := range map[string]roundTrip{"float64 numbers": floats, "empty strings dropped": dropEmpty} {
		if diffs := checkRoundTrips(t, raw, rt, tally{}, false); len(diffs) == 0 {
			t.Errorf("%s: the check found no difference", name)
		} else {
			t.Logf("%s: %d differences found, e.g. %s", name, len(diffs), diffs[0])
		}
	}
}
