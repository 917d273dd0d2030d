package modproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"modbay/internal/testcorpus"
)

// The decoders as they were before the one-pass scanner (jsontext.go,
// keys.go and strict.go at the time), kept as the fuzz targets' oracle:
// the scanner's verdicts, errors and findings must be theirs.

func legacyDecodeEnvelope(stdout []byte) (*Envelope, error) {
	trimmed := bytes.TrimLeft(stdout, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, &DecodeError{Code: CodeHostInvalidJSON, Detail: "stdout is empty; expected one JSON envelope"}
	}
	lead := int64(len(stdout) - len(trimmed))
	if trimmed[0] != '{' {
		return nil, &DecodeError{Code: CodeHostInvalidJSON, Detail: "stdout does not start with a JSON object", Offset: lead}
	}
	dec := json.NewDecoder(bytes.NewReader(stdout))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		off := dec.InputOffset()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		return nil, &DecodeError{Code: CodeHostInvalidJSON, Detail: "stdout is not valid JSON: " + err.Error(), Offset: off}
	}
	end := dec.InputOffset()
	if rest := bytes.TrimSpace(stdout[end:]); len(rest) > 0 {
		return nil, &DecodeError{Code: CodeHostProtocolViolation,
			Detail: fmt.Sprintf("%d bytes of non-whitespace after the envelope", len(rest)), Offset: end, Trailing: true}
	}
	if err := legacyCheckKeys(raw, legacyEnvelopeRules); err != nil {
		return nil, &DecodeError{Code: CodeHostProtocolViolation, Detail: "envelope breaks docs/protocol.md §6 (one name per key): " + err.Error(), Offset: lead}
	}
	var env Envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		// One JSON object, but a field of the wrong type: the envelope
		// breaks the rules of docs/protocol.md §6 rather than not being JSON.
		return nil, &DecodeError{Code: CodeHostProtocolViolation, Detail: "envelope has a field of the wrong type: " + err.Error(), Offset: lead}
	}
	return &env, nil
}

func legacyDecodeDescriptor(result json.RawMessage) (*Descriptor, error) {
	t := bytes.TrimSpace(result)
	if len(t) == 0 || t[0] != '{' {
		return nil, errors.New("describe result is not a JSON object")
	}
	if err := legacyCheckKeys(t, legacyDescriptorRules); err != nil {
		return nil, fmt.Errorf("describe result breaks docs/protocol.md §9 (one name per key): %w", err)
	}
	var d Descriptor
	if err := json.Unmarshal(t, &d); err != nil {
		return nil, fmt.Errorf("describe result: %w", err)
	}
	d.Normalize()
	return &d, nil
}

type legacyRules struct{ opaque func(path string) bool }

var legacyEnvelopeRules = legacyRules{opaque: func(path string) bool {
	return path == "result" || path == "error.details"
}}

var legacyDescriptorRules = legacyRules{opaque: func(path string) bool {
	switch path {
	case "request_schemas", "result_schemas", "artifact_schemas":
		return true
	}
	return false
}}

func legacyCheckKeys(data []byte, rules legacyRules) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object bool
		path   string
		opaque bool
		index  int               // arrays: the next element's index
		key    string            // objects: the key whose value comes next
		expect bool              // objects: the next token is a key
		exact  map[string]bool   // objects: keys as spelt
		folded map[string]string // objects: folded key -> first spelling
	}
	var stack []*frame
	// childPath is the path of the value about to start in the top frame.
	childPath := func() (string, bool) {
		if len(stack) == 0 {
			return "", false
		}
		top := stack[len(stack)-1]
		if top.object {
			p := top.key
			if top.path != "" {
				p = top.path + "." + top.key
			}
			return p, top.opaque
		}
		return fmt.Sprintf("%s[%d]", top.path, top.index), top.opaque
	}
	// valueDone advances the top frame past one complete value.
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.expect = true
		} else {
			top.index++
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(stack) > 0 {
			if top := stack[len(stack)-1]; top.object && top.expect {
				if d, ok := tok.(json.Delim); ok && d == '}' {
					stack = stack[:len(stack)-1]
					valueDone()
					continue
				}
				k, _ := tok.(string)
				if top.exact[k] {
					return &DuplicateKeyError{Path: top.path, First: k, Second: k}
				}
				top.exact[k] = true
				if !top.opaque {
					f := foldKey(k)
					if first, seen := top.folded[f]; seen {
						return &DuplicateKeyError{Path: top.path, First: first, Second: k}
					}
					top.folded[f] = k
				}
				top.key, top.expect = k, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) >= MaxKeyDepth {
				return fmt.Errorf("JSON nests deeper than %d levels", MaxKeyDepth)
			}
			p, opaque := childPath()
			opaque = opaque || (p != "" && rules.opaque(p))
			f := &frame{object: tok == json.Delim('{'), path: p, opaque: opaque, expect: true}
			if f.object {
				f.exact, f.folded = map[string]bool{}, map[string]string{}
			}
			stack = append(stack, f)
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}

type legacyWalker struct{ errs, warns ValidationErrors }

func legacyCheckDescriptorKeys(raw json.RawMessage) (errs, warns ValidationErrors) {
	w := &legacyWalker{}
	w.walk(bytes.TrimSpace(raw), descriptorShape, "")
	return w.errs, w.warns
}

func legacyCheckEnvelopeKeys(raw []byte) (errs, warns ValidationErrors) {
	w := &legacyWalker{}
	w.walk(bytes.TrimSpace(raw), envelopeShape, "")
	return w.errs, w.warns
}

// walk checks raw against sh at path p.
func (w *legacyWalker) walk(raw []byte, sh *shape, p string) {
	if sh == nil || sh.kind == kindAny || len(raw) == 0 {
		return
	}
	if bytes.Equal(raw, []byte("null")) {
		return // null reads as the zero value; ValidateEnvelope judges presence
	}
	if got := kindOf(raw); !fits(got, sh.kind, raw) {
		w.errs = append(w.errs, ValidationError{fieldPath(p), fmt.Sprintf("must be %s, got %s", kindName(sh.kind), sentValue(raw))})
		return
	}
	switch sh.kind {
	case kindArray:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return
		}
		for i, it := range items {
			w.walk(bytes.TrimSpace(it), sh.elem, fmt.Sprintf("%s[%d]", p, i))
		}
	case kindMap:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			w.walk(bytes.TrimSpace(m[k]), sh.elem, fmt.Sprintf("%s[%q]", p, k))
		}
	case kindObject:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			kp := joinPath(p, k)
			f, known := sh.fields[k]
			if known {
				w.walk(bytes.TrimSpace(m[k]), f, kp)
				continue
			}
			if sh.quiet[k] {
				continue
			}
			detail := "unknown key"
			if s := closest(k, keysOf(sh.fields)); s != "" {
				detail += fmt.Sprintf("; did you mean %q?", s)
			}
			if sh.strict {
				w.errs = append(w.errs, ValidationError{kp, detail + " (an unknown key here could change what is approved, so the module is refused)"})
			} else {
				w.warns = append(w.warns, ValidationError{kp, detail + " (ignored)"})
			}
		}
	}
}

// sameAsLegacy fails t when the decoders' verdicts on b differ from the
// legacy ones: syntax (json.Valid), DecodeEnvelope, DecodeDescriptor (of b
// and of the envelope's result), and the strict key walks.
func sameAsLegacy(t *testing.T, b []byte) {
	t.Helper()
	i := skipSpaceAt(b, 0)
	end, _, err := scanValue(nil, b, i, nil)
	if got, want := i < len(b) && err == nil && skipSpaceAt(b, end) == len(b), json.Valid(b); got != want {
		t.Fatalf("scanner says valid=%v, json.Valid %v: %q", got, want, b)
	}
	env, err := DecodeEnvelope(b)
	lenv, lerr := legacyDecodeEnvelope(b)
	if !reflect.DeepEqual(err, lerr) {
		t.Fatalf("DecodeEnvelope(%q):\n got %v\nwant %v", b, err, lerr)
	}
	if err == nil {
		for _, k := range []string{"warnings", "execution", "result"} {
			if env.has(k) != lenv.has(k) || env.rawKind(k) != lenv.rawKind(k) {
				t.Fatalf("DecodeEnvelope(%q): key %s seen differently", b, k)
			}
		}
		a, l := *env, *lenv
		a.seen, l.seen = nil, nil
		if !reflect.DeepEqual(a, l) {
			t.Fatalf("DecodeEnvelope(%q):\n got %#v\nwant %#v", b, a, l)
		}
		sameDescriptor(t, env.Result)
	}
	sameDescriptor(t, b)
	ge, gw := CheckEnvelopeKeys(b)
	le, lw := legacyCheckEnvelopeKeys(b)
	if !reflect.DeepEqual(ge, le) || !reflect.DeepEqual(gw, lw) {
		t.Fatalf("CheckEnvelopeKeys(%q):\n got %v / %v\nwant %v / %v", b, ge, gw, le, lw)
	}
}

func sameDescriptor(t *testing.T, b []byte) {
	t.Helper()
	d, err := DecodeDescriptor(b)
	ld, lerr := legacyDecodeDescriptor(b)
	if (err == nil) != (lerr == nil) {
		t.Fatalf("DecodeDescriptor(%q):\n got %v\nwant %v", b, err, lerr)
	}
	// A malformed document's message may differ (the scanner finds the
	// syntax error before a duplicate key that follows it).
	if err != nil && json.Valid(bytes.TrimSpace(b)) && err.Error() != lerr.Error() {
		t.Fatalf("DecodeDescriptor(%q):\n got %v\nwant %v", b, err, lerr)
	}
	if err == nil && !reflect.DeepEqual(d, ld) {
		t.Fatalf("DecodeDescriptor(%q):\n got %#v\nwant %#v", b, d, ld)
	}
	if err == nil {
		for k, raw := range d.RequestSchemas {
			if got, want := checkSchemaDoc(k, raw), legacyCheckSchemaDoc(k, raw); got != want {
				t.Fatalf("checkSchemaDoc(%q, %s) = %q, want %q", k, raw, got, want)
			}
		}
	}
	ge, gw := CheckDescriptorKeys(b)
	le, lw := legacyCheckDescriptorKeys(b)
	if !reflect.DeepEqual(ge, le) || !reflect.DeepEqual(gw, lw) {
		t.Fatalf("CheckDescriptorKeys(%q):\n got %v / %v\nwant %v / %v", b, ge, gw, le, lw)
	}
}

// TestSameAsLegacy runs the oracle over the corpus, the benchmarks' shapes
// (small) and inputs at the edges of the grammar and the key rules.
func TestSameAsLegacy(t *testing.T) {
	var inputs [][]byte
	if dir, ok := testcorpus.Lookup(t, "modules"); ok {
		for _, p := range jsonFiles(t, dir) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, b)
		}
	}
	for _, s := range hostileShapes {
		inputs = append(inputs, describeEnvelope(hostileDescriptor(s, 4<<10)), []byte(hostileDescriptor(s, 4<<10)))
		if s.value != nil {
			inputs = append(inputs, invokeEnvelope(s.value(4<<10)))
		}
	}
	for _, s := range []string{
		``, ` `, `{`, `}`, `{}`, `{} `, `{}x`, `{} {}`, `[]`, `"x"`, `{"a":1,}`, `{"a" 1}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`,
		`{"a":1e}`, `{"a":1e+5}`, `{"a":-0.5E-3}`, `{"a":tru}`, `{"a":truex}`, `{"a":nul}`, `{"a":"\x01"}`, `{"a":"\q"}`,
		`{"a":"\u12"}`, `{"a":"\u12G4"}`, "{\"a\":\"\xff\xfe\"}", "{\"\xff\":1,\"\xfe\":2}", `{"\ud800":1,"\udbff":2}`,
		`{"\ud83d\ude00":1,"😀":2}`, `{"a":1,"\u0061":2}`, `{"ok":true,"OK":false}`, `{"ok":true,"oK":false}`,
		`{"result":{"a":1,"A":2}}`, `{"result":{"a":1,"a":2}}`, `{"error":{"details":{"x":1,"X":2}}}`,
		`{"error":{"details":{"x":1,"x":2}}}`, `{"error.details":{"x":1,"X":2}}`, `{"error":{"Details":{"x":1,"X":2}}}`,
		`{"execution":{"network":true,"Network":false}}`, `{"execution":{"artifacts":[{"id":"a","ID":"b"}]}}`,
		`{"request_schemas":{"s":{"A":1,"a":2}},"capabilities":[{"id":"x","Id":"y"}]}`,
		`{"Request_Schemas":{"s":{}},"Module":"m","CAPABILITIES":[{"ID":"a","Effects":{"Network":true}}]}`,
		`{"request_schemas":"x"}`, `{"request_schemas":null,"capabilities":null}`, `{"capabilities":[1,"x",{}]}`,
		`{"capabilities":[{"effects":{"netwrok":true,"network":"yes"}}],"tokens":1.5}`,
		`{"skills":[{"tokens":1.5},{"tokens":1e99},{"tokens":"x"}]}`, `{"zz":1,"zz":2,"capabilities":[{"effects":1},{"effects":2}]}`,
		`{"requirements":[{"kind":"binary","required":true,"for":"x","other":1}]}`,
		`{"result":null,"warnings":null,"execution":null}`, `{"result" : [1, 2] , "ok":true}`,
		`{"error":{"code":"c","message":"m","details":7}}`, `{"error":"boom"}`, `{"error":{"details":{"a":[1,{"b":2}]}}}`,
		`{"protocol":1,"ok":"yes","warnings":[1],"execution":{"estimated_cost":"x","artifacts":[{"bytes":1.5}]}}`,
		strings.Repeat("[", 600) + strings.Repeat("]", 600), `{"x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
		`{"result":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
		`{"x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`,
		`{"a":` + strings.Repeat(`{"a":`, 520) + `1` + strings.Repeat("}", 520) + `}`,
		`{"k":[` + strings.Repeat(`{"a":1},`, 40) + `{"a":1,"b":2,"a":3}]}`,
		`{` + strings.Repeat(`"k":1,`, 1) + fill(2000, "", "", ",", func(i int) string { return fmt.Sprintf(`"k%d":0`, i) }) + `,"K7":1}`,
	} {
		inputs = append(inputs, []byte(s))
	}
	for _, b := range inputs {
		sameAsLegacy(t, b)
	}
}
func legacyEditDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

// TestEditDistanceAsLegacy: the three-row distance is the full table's.
func TestEditDistanceAsLegacy(t *testing.T) {
	words := []string{"", "a", "ab", "ba", "network", "netwrok", "NETWORK", "capabilities", "capabilites", "kelvin\u212a", "ça", "aç", strings.Repeat("x", 70), strings.Repeat("x", 68) + "yx"}
	for _, a := range words {
		for _, b := range words {
			if got, want := editDistance(a, b), legacyEditDistance(a, b); got != want {
				t.Errorf("editDistance(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// TestBoundedEditDistance: within the bound the distance is exact, past
// it above the bound.
func TestBoundedEditDistance(t *testing.T) {
	words := []string{"", "a", "ab", "ba", "network", "netwrok", "nteowrk", "capabilities", "capabilites", "k123456", "module", "modules", "xyzzy"}
	for _, a := range words {
		for _, b := range words {
			want := legacyEditDistance(a, b)
			for limit := 0; limit <= 4; limit++ {
				got := boundedEditDistance(a, b, limit)
				if want <= limit && got != want || want > limit && got <= limit {
					t.Errorf("boundedEditDistance(%q, %q, %d) = %d, distance %d", a, b, limit, got, want)
				}
			}
		}
	}
}

// TestClosestAsLegacy: the filters before the distance change no answer.
func TestClosestAsLegacy(t *testing.T) {
	names := descriptorShape.names
	for _, k := range []string{"modul", "MODULE", "k123", "nmae", "verison", "capabilties", "skils", "permisions", "x", "", "requirments", "re\u212aquirements", "ékills", "protocol-versions", "request_schema", "zzzzzzzzzzzzzzzzzzzzzz"} {
		want := ""
		best := -1
		limit := min(max(1, len([]rune(k))/3), 3)
		for _, c := range names {
			d := legacyEditDistance(strings.ToLower(k), strings.ToLower(c))
			if d <= limit && (best < 0 || d < best) {
				want, best = c, d
			}
		}
		if got := closest(k, names); got != want {
			t.Errorf("closest(%q) = %q, want %q", k, got, want)
		}
	}
}

// legacyCheckSchemaDoc is checkSchemaDoc's reading of $id before
// schemaHead: encoding/json over the whole schema.
func legacyCheckSchemaDoc(k string, raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return "schema must be a JSON object"
	}
	var head struct {
		ID *string `json:"$id"`
	}
	if err := json.Unmarshal(t, &head); err != nil {
		return "schema $id must be a string: " + err.Error()
	}
	if head.ID == nil {
		return ""
	}
	id := strings.ToLower(versionSuffix().ReplaceAllString(*head.ID, ""))
	key := strings.ToLower(versionSuffix().ReplaceAllString(k, ""))
	if !strings.HasSuffix(id, key) {
		return fmt.Sprintf("$id %q does not end in its key %q", *head.ID, k)
	}
	return ""
}

// TestSchemaHeadAsLegacy: the $id rule reads the same $id from the few
// members schemaHead keeps as from the whole schema.
func TestSchemaHeadAsLegacy(t *testing.T) {
	for _, raw := range []string{
		`{}`, `{"$id":"https://x/s/v1"}`, `{"$id":"https://x/other"}`, `{"$id":1}`, `{"$id":{"a":[1]}}`, `{"$id":null}`,
		`{"$ID":"https://x/s"}`, `{"$id":"https://x/s","$ID":null}`, `{"$Id":7,"$id":"https://x/s"}`, `{"$\u0069d":"https://x/s"}`,
		`{"type":"object","properties":{"$id":{"type":"string"}}}`, `{"$id":"https://x/s"`, `{"$id":"x"} x`, `{"$id":"\ud800"}`,
		`{"$id":"https://x/s","$id":"https://x/t"}`, ` {"$id" : "https://x/s/v2" } `,
	} {
		if got, want := checkSchemaDoc("s/v1", json.RawMessage(raw)), legacyCheckSchemaDoc("s/v1", json.RawMessage(raw)); got != want {
			t.Errorf("checkSchemaDoc(%s) = %q, want %q", raw, got, want)
		}
	}
}
