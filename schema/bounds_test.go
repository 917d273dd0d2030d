package schema

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileSchema reads testdata/hostile/name.json.
func hostileSchema(t *testing.T, name string) json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "hostile", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// wantBound fails unless err is a *BoundError naming bound.
func wantBound(t *testing.T, err error, bound string) {
	t.Helper()
	var be *BoundError
	if !errors.As(err, &be) || be.Bound != bound {
		t.Fatalf("error %v, want the bound %s", err, bound)
	}
	if !strings.Contains(err.Error(), bound) {
		t.Fatalf("error %q does not name %s", err, bound)
	}
}

// TestHostileSchemasRefused: the schemas that hung or crashed the host
// are refused at Compile, naming the bound, in well under a second.
func TestHostileSchemasRefused(t *testing.T) {
	for name, bound := range map[string]string{
		"refs-doubling":   "MaxSchemaExpansion",
		"multipleof-huge": "MaxNumberExponent",
		"pattern-states":  "MaxPatternInsts",
		// Parse refuses these; before, compile went on uncounted.
		"nodes-wide": "MaxDocNodes",
		"nodes-deep": "MaxDocDepth",
		// Under MaxDocNodes, but the compiler's work is quadratic.
		"compile-nodes": "MaxCompileNodes",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Compile(hostileSchema(t, name))
			wantBound(t, err, bound)
		})
	}
}

// TestManyPatternsRefused: many patterns, each under MaxPatternInsts,
// are refused together before the compiler compiles them all (2,000 of
// them took 12 s).
func TestManyPatternsRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"properties":{`)
	for i := range 2000 {
		fmt.Fprintf(&b, `"p%d":{"pattern":"^(?:a?){1000}(?:b?){1000}$"},`, i)
	}
	b.WriteString(`"last":{}}}`)
	_, err := Compile(json.RawMessage(b.String()))
	wantBound(t, err, "MaxSchemaPatternInsts")
}

// doubling returns a schema whose refs double n times under "items".
func doubling(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"array","items":{"$ref":"#/$defs/d0"},"$defs":{`)
	for i := range n {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"string"}}}`, n)
	return json.RawMessage(b.String())
}

// TestValidationBounded: a schema under the expansion bound still cannot
// make one validation run long: steps, regex work and huge numbers in
// the input each stop it with their bound, and a cancelled context stops
// it too.
func TestValidationBounded(t *testing.T) {
	h, err := Compile(doubling(14))
	if err != nil {
		t.Fatal(err)
	}
	items := "[" + strings.Repeat(`"a",`, 199) + `"a"]`
	_, err = h.Validate(json.RawMessage(items))
	wantBound(t, err, "MaxValidateSteps")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.ValidateContext(ctx, json.RawMessage(`["b"]`)); !errors.Is(err, ErrCancelled) {
		t.Fatalf("cancelled validation: %v", err)
	}
	if v, err := h.Validate(json.RawMessage(`["b"]`)); err != nil || v != nil {
		t.Fatalf("a small value after a cancelled one: %v %v", v, err)
	}

	pat := `{"properties":{"t":{"pattern":"^` + strings.Repeat(`(?:[a-z]?){1000}`, 9) + `z$"}}}`
	h, err = Compile(json.RawMessage(pat))
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Validate(json.RawMessage(`{"t":"` + strings.Repeat("a", 200000) + `"}`))
	wantBound(t, err, "MaxMatchCost")

	h, err = Compile(json.RawMessage(`{"properties":{"n":{"minimum":0,"multipleOf":3}}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Validate(json.RawMessage(`{"n":1e10000000}`))
	wantBound(t, err, "MaxNumberExponent")
	if h.Matches("", json.RawMessage(`{"n":1e10000000}`)) {
		t.Fatal("a number past the bound matched")
	}
}

// TestRedactBounded: masking an input weighs at most MaxValidateSteps
// subschemas; what is left past that is withheld, never walked.
func TestRedactBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"array","items":{"anyOf":[`)
	for i := range 3000 {
		fmt.Fprintf(&b, `{"type":"string","minLength":%d},`, i)
	}
	b.WriteString(`{}]}}`)
	h, err := Compile(json.RawMessage(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	input := "[" + strings.Repeat(`"a",`, 999) + `"a"]`
	if _, n := Redact(h, json.RawMessage(input), RedactMask); n == 0 {
		t.Fatal("nothing withheld past the bound: the walk went on")
	}
}

// TestFormBudget: the form's check stops at its smaller bound, and the
// run's check of the same input, after it, still judges it in full.
func TestFormBudget(t *testing.T) {
	raw := doubling(9) // 1,500 subschemas per item
	items := "[" + strings.Repeat(`"a",`, 99) + `"a"]`
	_, err := ValidateForm(raw, json.RawMessage(items))
	wantBound(t, err, "MaxFormValidateSteps")
	if v, err := ValidateInput(raw, json.RawMessage(items)); err != nil || v != nil {
		t.Fatalf("the full check after the form's: %v %v", v, err)
	}
}

// TestCheckNumber: the exponent and digit bounds, at their edges.
func TestCheckNumber(t *testing.T) {
	for s, bad := range map[string]bool{
		"1e1000": false, "1e1001": true, "-2.5E-1000": false, "1e-1001": true, "1e+0001000": false,
		"1e99999999999999999999": true, strings.Repeat("9", 1000): false, strings.Repeat("9", 1001): true, "0.5": false,
	} {
		if got := CheckNumber(s, "x") != nil; got != bad {
			t.Errorf("CheckNumber(%.30s): refused %v, want %v", s, got, bad)
		}
	}
}

// TestCompileContextStops: a compile (a 16 MiB describe's schemas cost
// seconds) stops with its context, and the cancelled attempt is not
// cached: the same bytes compile afterwards.
func TestCompileContextStops(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","pattern":"^x+$"}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CompileContext(ctx, raw); !errors.Is(err, ErrCancelled) {
		t.Fatalf("cancelled compile: %v", err)
	}
	if _, err := CompileContext(context.Background(), raw); err != nil {
		t.Fatalf("after a cancelled attempt: %v", err)
	}
}

// lateCancel is a context cancelled once its Err has been asked after
// times: past the checks between a compile's steps, inside the work.
type lateCancel struct {
	context.Context
	calls, after int
}

func (c *lateCancel) Err() error {
	if c.calls++; c.calls > c.after {
		return context.Canceled
	}
	return nil
}

// wideStrings is a schema of n string properties, each with pattern (none
// when ""): in every bound, seconds for the compiler at 5,000.
func wideStrings(n int, pattern string) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string","minLength":1`, i)
		if pattern != "" {
			fmt.Fprintf(&b, `,"pattern":%q`, pattern)
		}
		b.WriteString(`}`)
	}
	b.WriteString(`}}`)
	return json.RawMessage(b.String())
}

// TestCompileStopsMidway: a context cancelled while the schema's
// patterns are checked, or while the compiler works through its
// subschemas, stops the compile there (the compiler's work on 5,000
// subschemas took seconds after a SIGINT before), and nothing is cached.
func TestCompileStopsMidway(t *testing.T) {
	for name, raw := range map[string]json.RawMessage{
		"patterns":   wideStrings(3000, "^(a|b|c|d|e|f|g|h)*x{0,20}$"),
		"subschemas": wideStrings(3000, ""),
	} {
		ctx := &lateCancel{Context: context.Background(), after: 20}
		if _, err := CompileContext(ctx, raw); !errors.Is(err, ErrCancelled) {
			t.Fatalf("%s: compile cancelled midway: %v", name, err)
		}
		if ctx.calls > ctx.after+2 { // the cancel and its cause
			t.Errorf("%s: the compile went on past the cancel (%d more checks)", name, ctx.calls-ctx.after-2)
		}
	}
}

// TestUniqueItemsMetered: the work uniqueItems does (every array hashed
// whole, a big number as a big.Rat) counts against MaxValidateSteps
// before validation: 40,000 numbers of 1e999 under uniqueItems are a
// bound, not half a second the meter never saw; the same array without
// uniqueItems, and a modest one with it, validate.
func TestUniqueItemsMetered(t *testing.T) {
	var b strings.Builder
	b.WriteByte('[')
	for i := range 40000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%de999", i+1)
	}
	b.WriteByte(']')
	big := json.RawMessage(b.String())
	unique, err := Compile(json.RawMessage(`{"type":"object","properties":{"xs":{"type":"array","uniqueItems":true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = unique.Validate(json.RawMessage(`{"xs":` + string(big) + `}`))
	wantBound(t, err, "MaxValidateSteps")
	plain, err := Compile(json.RawMessage(`{"type":"object","properties":{"xs":{"type":"array"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Validate(json.RawMessage(`{"xs":` + string(big) + `}`)); err != nil {
		t.Fatalf("without uniqueItems: %v", err)
	}
	v, err := unique.Validate(json.RawMessage(`{"xs":[1,2,[3,4],{"a":[5]},2]}`))
	if err != nil || len(v) != 1 {
		t.Fatalf("a modest array: %v %v, want its one duplicate", v, err)
	}
	if _, err := ValidateForm(json.RawMessage(`{"type":"array","uniqueItems":true}`), json.RawMessage(`[`+strings.Repeat(`[[[1]]],`, 40000)+`1]`)); !IsBound(err) {
		t.Fatalf("the form's check of 40,000 nested arrays: %v, want MaxFormValidateSteps", err)
	}
}

// TestSchemaBytesRefusedFirst: a schema document past MaxSchemaBytes (an
// 11 MB one took 3 s to be refused by the node bounds) is refused by its
// size, before Parse or Compile decodes any of it; one at the bound is
// read.
func TestSchemaBytesRefusedFirst(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"anyOf":[`)
	for b.Len() < 11<<20 {
		b.WriteString(`{"anyOf":[{"type":"string","minLength":1},{"type":"integer"}]},`)
	}
	b.WriteString(`{}]}`)
	huge := json.RawMessage(b.String())
	_, err := Compile(huge)
	wantBound(t, err, "MaxSchemaBytes")
	_, err = CompileContext(context.Background(), huge)
	wantBound(t, err, "MaxSchemaBytes")
	_, err = Parse(huge)
	wantBound(t, err, "MaxSchemaBytes")

	// Exactly MaxSchemaBytes: a description fills it; it compiles.
	at := `{"type":"object","description":"` + strings.Repeat("x", MaxSchemaBytes-len(`{"type":"object","description":""}`)) + `"}`
	if len(at) != MaxSchemaBytes {
		t.Fatalf("built %d bytes", len(at))
	}
	if _, err := Compile(json.RawMessage(at)); err != nil {
		t.Fatalf("a schema of MaxSchemaBytes: %v", err)
	}
}

// TestDeepLongKeysRefusedByLocation: 90 levels of 10,000-byte property
// names (900 KB, under MaxSchemaBytes) are refused by MaxSchemaLocation
// before the compiler, which builds every location as a string (14 s),
// and the refusal quotes a cut location.
func TestDeepLongKeysRefusedByLocation(t *testing.T) {
	var o any = map[string]any{"pattern": "("}
	for i := range 90 {
		o = map[string]any{"type": "object", "properties": map[string]any{fmt.Sprintf("k%d", i) + strings.Repeat("a", 10000): o}}
	}
	raw, _ := json.Marshal(o)
	_, err := Compile(raw)
	var be *BoundError
	if !errors.As(err, &be) || be.Bound != "MaxSchemaLocation" || len(err.Error()) > 1000 {
		t.Fatalf("compile: %.300v (%d bytes)", err, len(fmt.Sprint(err)))
	}
}

// TestCompileErrorBounded: a schema broken in 50 places says 4 of them
// and how many more, not the compiler's tree of every cause.
func TestCompileErrorBounded(t *testing.T) {
	p := map[string]any{}
	for i := range 50 {
		p[fmt.Sprintf("p%02d", i)] = map[string]any{"pattern": "(" + strings.Repeat("x", 1000)}
	}
	raw, _ := json.Marshal(map[string]any{"properties": p})
	_, err := Compile(raw)
	if err == nil {
		t.Fatal("compiled")
	}
	msg := err.Error()
	if n := strings.Count(msg, "at '/properties/p"); n != maxCompileCauses || !strings.Contains(msg, "; and 46 more") || len(msg) > 4*maxCauseRunes*5 {
		t.Errorf("%d causes named in %d bytes: %.500s", n, len(msg), msg)
	}
}

// TestFindingsBounded: 90 levels of 10,000-byte keys failing a oneOf at
// each level are 92 findings whose pointers add up to 42 MB; at most
// maxFindingPathBytes of them are listed, and one finding counts the rest.
func TestFindingsBounded(t *testing.T) {
	var v any = map[string]any{"x": 1}
	for i := range 90 {
		v = map[string]any{fmt.Sprintf("%02d", i) + strings.Repeat("a", 10000): v}
	}
	in, _ := json.Marshal(v)
	h, err := Compile(json.RawMessage(`{"type":"object","additionalProperties":{"oneOf":[{"$ref":"#"},{"type":"string"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	found, err := h.Validate(in)
	if err != nil || len(found) == 0 {
		t.Fatalf("validate: %v, %d findings", err, len(found))
	}
	n := 0
	for _, f := range found {
		n += len(f.Path)
	}
	last := found[len(found)-1]
	if n > maxFindingPathBytes || !strings.Contains(fmt.Sprint(found), "more problems, not listed") {
		t.Errorf("%d findings, %d bytes of pointers; last %+v", len(found), n, last)
	}
}

// TestLocationComparesBounded: 7,990 children of one property with a
// 3,900-byte name, their names all one length (211 KB, under every other
// bound), made the compiler compare 127 GB of locations (30 s); refused
// by MaxLocationCompares before it. 7,990 properties of short names of
// one length still compile.
func TestLocationComparesBounded(t *testing.T) {
	kids := map[string]any{}
	for i := range 7990 {
		kids[fmt.Sprintf("c%05d", i)] = true
	}
	raw, _ := json.Marshal(map[string]any{"properties": map[string]any{strings.Repeat("n", 3900): map[string]any{"properties": kids}}})
	_, err := Compile(raw)
	var be *BoundError
	if !errors.As(err, &be) || be.Bound != "MaxLocationCompares" {
		t.Fatalf("compile: %v", err)
	}
	raw, _ = json.Marshal(map[string]any{"properties": kids})
	if _, err := Compile(raw); err != nil {
		t.Fatalf("a flat schema of 7,990 properties: %v", err)
	}
}

// TestUnsupportedPatternNamed: lookaround and backreferences, valid in
// ECMA-262, are refused as what RE2 does not run, not as invalid.
func TestUnsupportedPatternNamed(t *testing.T) {
	for p, want := range map[string]string{
		`^(?=x)a$`: "lookaround (?= is not supported", `(?!b)`: "lookaround (?! is not supported",
		`(?<=a)b`: "lookaround (?<= is not supported", `(a)\1`: `backreference \1 is not supported`,
	} {
		_, _, err := CompilePattern(p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", p, err, want)
		}
	}
	if _, _, err := CompilePattern(`(?P<x>a)\d+`); err != nil {
		t.Errorf("an RE2 pattern refused: %v", err)
	}
}
