package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/modproto"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, schema, input string
		mask, omit          string // want, compact; "" = unchanged
		n                   int
	}{
		{"format password", `{"properties":{"user":{"type":"string"},"pw":{"type":"string","format":"password"}}}`,
			`{"user":"ann","pw":"hunter2"}`, `{"user":"ann","pw":"••••••"}`, `{"user":"ann"}`, 1},
		{"writeOnly", `{"properties":{"token":{"type":"string","writeOnly":true}}}`,
			`{"token":"s3cret"}`, `{"token":"••••••"}`, `{}`, 1},
		{"nothing secret keeps the bytes", `{"properties":{"url":{"type":"string","format":"uri"}}}`,
			`{ "url" : "https://example.com/1e400" }`, "", "", 0},
		{"nested object and array items", `{"properties":{"accounts":{"type":"array","items":{"properties":{"name":{},"key":{"writeOnly":true}}}}}}`,
			`{"accounts":[{"name":"a","key":"k1"},{"name":"b","key":"k2"}]}`,
			`{"accounts":[{"name":"a","key":"••••••"},{"name":"b","key":"••••••"}]}`, `{"accounts":[{"name":"a"},{"name":"b"}]}`, 2},
		{"$ref to $defs", `{"$defs":{"secret":{"type":"string","format":"password"}},"properties":{"pw":{"$ref":"#/$defs/secret"},"n":{"type":"integer"}}}`,
			`{"pw":"x","n":12345678901234567890}`, `{"pw":"••••••","n":12345678901234567890}`, `{"n":12345678901234567890}`, 1},
		{"draft 7 definitions", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"writeOnly":true}},"properties":{"k":{"$ref":"#/definitions/s"}}}`,
			`{"k":"v"}`, `{"k":"••••••"}`, `{}`, 1},
		{"recursive $ref", `{"$defs":{"node":{"properties":{"pw":{"format":"password"},"child":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`,
			`{"pw":"a","child":{"pw":"b","child":{}}}`, `{"pw":"••••••","child":{"pw":"••••••","child":{}}}`, `{"child":{"child":{}}}`, 2},
		{"anyOf: any branch marks it", `{"properties":{"cred":{"anyOf":[{"type":"integer"},{"type":"string","format":"password"}]}}}`,
			`{"cred":42}`, `{"cred":"••••••"}`, `{}`, 1},
		{"oneOf branch properties", `{"oneOf":[{"properties":{"kind":{"const":"basic"},"password":{"writeOnly":true}}},{"properties":{"kind":{"const":"none"}}}]}`,
			`{"kind":"basic","password":"pw"}`, `{"kind":"basic","password":"••••••"}`, `{"kind":"basic"}`, 1},
		{"allOf and if/then", `{"allOf":[{"properties":{"a":{}}}],"if":{"properties":{"a":{"const":1}}},"then":{"properties":{"b":{"writeOnly":true}}}}`,
			`{"a":2,"b":"x"}`, `{"a":2,"b":"••••••"}`, `{"a":2}`, 1},
		{"additionalProperties and patternProperties", `{"properties":{"name":{}},"patternProperties":{"^pw_":{"format":"password"}},"additionalProperties":{"writeOnly":true}}`,
			`{"name":"n","pw_1":"a","other":"b"}`, `{"name":"n","pw_1":"••••••","other":"••••••"}`, `{"name":"n"}`, 2},
		{"prefixItems", `{"prefixItems":[{"type":"string"},{"format":"password"}]}`,
			`["user","pw"]`, `["user","••••••"]`, `["user"]`, 1},
		{"a secret object is withheld whole", `{"properties":{"auth":{"type":"object","writeOnly":true}}}`,
			`{"auth":{"user":"u","pw":"p"}}`, `{"auth":"••••••"}`, `{}`, 1},
		{"not JSON is withheld", `{"properties":{"a":{}}}`, `{"a":`, `"••••••"`, "null", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := Compile(json.RawMessage(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			for _, how := range []struct {
				r    Redaction
				want string
			}{{RedactMask, c.mask}, {RedactOmit, c.omit}} {
				got, n := Redact(h, json.RawMessage(c.input), how.r)
				want := how.want
				if want == "" {
					want = c.input
				}
				if string(got) != want && !(want == "null" && got == nil) {
					t.Errorf("redaction %d: got %s, want %s", how.r, got, want)
				}
				if n != c.n {
					t.Errorf("redaction %d: %d withheld, want %d", how.r, n, c.n)
				}
			}
		})
	}
}

func TestRedactNoSchema(t *testing.T) {
	t.Parallel()
	in := json.RawMessage(`{"pw":"x"}`)
	if got, n := Redact(nil, in, RedactMask); string(got) != string(in) || n != 0 {
		t.Fatalf("got %s %d", got, n)
	}
}

// TestValidateMasksSecretsInFindings: a violation of a secret field names
// the rule but not the value; other fields' findings keep theirs.
func TestValidateMasksSecretsInFindings(t *testing.T) {
	t.Parallel()
	h, err := Compile(json.RawMessage(`{"properties":{"pw":{"format":"password","pattern":"^[0-9]+$"},
		"auth":{"writeOnly":true,"properties":{"token":{"pattern":"^x"}}},"name":{"pattern":"^[0-9]+$"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := h.Validate(json.RawMessage(`{"pw":"hunter2","auth":{"token":"s3cret"},"name":"ann"}`))
	if err != nil || len(v) != 3 {
		t.Fatalf("%v %v", v, err)
	}
	got := v.Error()
	for _, leak := range []string{"hunter2", "s3cret"} {
		if strings.Contains(got, leak) {
			t.Errorf("finding shows %q: %s", leak, got)
		}
	}
	// The plain-word messages name the rule, not the value; any value a
	// message would quote is masked first (maskFindings).
	if strings.Count(got, "must match the pattern") != 3 {
		t.Errorf("findings %s", got)
	}
}

// TestRedactKeepsTextAsTyped: a redacted input (what the approval dialog,
// presets and copied commands show) keeps & < > as typed.
func TestRedactKeepsTextAsTyped(t *testing.T) {
	h, err := Compile(json.RawMessage(`{"properties":{"pw":{"format":"password"},"url":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, n := Redact(h, json.RawMessage(`{"url":"https://e.com/?a=1&b=<2>","pw":"x"}`), RedactMask)
	if n != 1 || !strings.Contains(string(out), `"url":"https://e.com/?a=1&b=<2>"`) {
		t.Errorf("redacted %s (%d masked): want the URL as typed", out, n)
	}
}

// TestMaskEchoes: a secret of the input sent back is replaced by its
// label, as written or JSON-escaped, and a JSON result stays JSON; short
// secrets and values not marked secret are left alone.
func TestMaskEchoes(t *testing.T) {
	h, err := Compile(json.RawMessage(`{"properties":{"api_key":{"type":"string","writeOnly":true},"pin":{"type":"string","format":"password"},"pw":{"writeOnly":true},"q":{"type":"string"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	echoes := Echoes(h, json.RawMessage(`{"api_key":"k\"e/y-123","pin":"123","pw":98765,"q":"public"}`))
	if len(echoes) != 2 {
		t.Fatalf("echoes %+v, want api_key and pw (pin is too short)", echoes)
	}
	got, n := MaskEchoes([]byte(`stderr: key k"e/y-123; pin 123; q public`), echoes)
	if n != 1 || string(got) != `stderr: key ‹masked: writeOnly /api_key›; pin 123; q public` {
		t.Fatalf("MaskEchoes: %d %s", n, got)
	}
	res, n := MaskEchoesJSON(json.RawMessage(`{"echo":"k\"e/y-123","n":98765}`), echoes)
	if n != 2 || !json.Valid(res) || strings.Contains(string(res), "98765") || !strings.Contains(string(res), "‹masked: writeOnly /pw›") {
		t.Fatalf("MaskEchoesJSON: %d %s", n, res)
	}
}

// TestRedactKeepsKeyOrder: masking or omitting a value re-encodes the
// input with every object's keys in the order they were typed, and a
// result whose echo is masked keeps its order too (docs/protocol.md §4).
func TestRedactKeepsKeyOrder(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "order", name))
		if err != nil {
			t.Fatal(err)
		}
		return bytes.TrimSpace(b)
	}
	h, err := Compile(read("schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	in := read("input.json")
	masked, n := Redact(h, in, RedactMask)
	if want := `{"zeta":"last letter first","token":"••••••","alpha":{"z":"z","pw":"••••••","a":1},"list":[{"y":"1","secret":"••••••","b":"2"}],"extra":"x & <y>"}`; string(masked) != want || n != 3 {
		t.Errorf("masked (%d):\n got %s\nwant %s", n, masked, want)
	}
	omitted, _ := Redact(h, in, RedactOmit)
	if want := `{"zeta":"last letter first","alpha":{"z":"z","a":1},"list":[{"y":"1","b":"2"}],"extra":"x & <y>"}`; string(omitted) != want {
		t.Errorf("omitted:\n got %s\nwant %s", omitted, want)
	}
	// A number echo makes the reply re-encoded (not masked in place).
	echoes := []Echo{{Value: "12345678", Pointer: "/code", Why: "writeOnly"}, {Value: "s3cr3t-value", Pointer: "/token", Why: "writeOnly"}}
	out, _ := MaskEchoesJSON(read("reply.json"), echoes)
	if want := `{"zeta":1,"code":"‹masked: writeOnly /code›","alpha":{"z":"echo ‹masked: writeOnly /token› here","a":2}}`; string(out) != want {
		t.Errorf("reply:\n got %s\nwant %s", out, want)
	}
}

// FuzzDecodeOrdered: the ordered decoder accepts exactly what
// encoding/json accepts, and re-encodes to the same value.
func FuzzDecodeOrdered(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,"x"]}`, `[]`, `"s"`, `{"a":1,"a":2}`, `{"a":`, `1 2`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := decodeOrdered(b)
		var std any
		stdErr := json.Unmarshal(b, &std)
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("ordered err %v, encoding/json err %v", err, stdErr)
		}
		if err != nil {
			return
		}
		out, err := modproto.EncodeJSON(v)
		if err != nil {
			t.Fatal(err)
		}
		var back any
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("re-encoded %s is not JSON: %v", out, err)
		}
		a, _ := json.Marshal(std)
		c, _ := json.Marshal(back)
		if !bytes.Equal(a, c) {
			t.Fatalf("re-encoded %s reads %s, want %s", out, c, a)
		}
	})
}

// TestEchoPrefixLen: the end of a chunk that begins a secret (as typed
// or as JSON escapes it) is found, the longest one (a whole secret ends
// with one K that may begin the next); a prefix not at the end is not.
func TestEchoPrefixLen(t *testing.T) {
	echoes := []Echo{{Pointer: "/k", Why: "writeOnly", Value: "KKKKsecK"}, {Pointer: "/q", Why: "writeOnly", Value: `a"bc`}}
	for in, want := range map[string]int{
		"live KKKKs": 5, "live K": 1, "KKKKKKK": 4, "live KKKKsecK": 1, "sec!": 0, "KKKKs tail": 0, "": 0,
		"x a": 1, `x a\"`: 3, "KKKKsec": 7, "KKKKsecKKKK": 4,
	} {
		if got := EchoPrefixLen([]byte(in), echoes); got != want {
			t.Errorf("EchoPrefixLen(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestMaskEchoesEscapedAnyway: a secret a module escapes otherwise than
// Go does (Python's ensure_ascii, an ASCII character as \u0039, upper-
// case hex, \/, a surrogate pair) is masked, the JSON stays JSON, and
// bytes no secret touches stay as sent.
func TestMaskEchoesEscapedAnyway(t *testing.T) {
	echoes := []Echo{
		{Pointer: "/pw", Why: "writeOnly", Value: "pässwörd<&>9"},
		{Pointer: "/k", Why: "writeOnly", Value: "a/b😀cd"},
	}
	for _, tc := range []struct{ in, want string }{
		{`{"echo":"p\u00e4ssw\u00f6rd<&>9","keep":"\u00e4"}`, `{"echo":"‹masked: writeOnly /pw›","keep":"\u00e4"}`},
		{`{"echo":"p\u00E4ssw\u00F6rd\u003c\u0026\u003e\u0039!"}`, `{"echo":"‹masked: writeOnly /pw›!"}`},
		{`["x pässwörd<&>\u0039 y"]`, `["x ‹masked: writeOnly /pw› y"]`},
		{`{"k":"a\/b\ud83d\ude00cd","j":"a\/b"}`, `{"k":"‹masked: writeOnly /k›","j":"a\/b"}`},
		{`{"k":"a\\u002fb😀cd"}`, `{"k":"‹masked: writeOnly /k›"}`}, // JSON text in a string: "a\u002fb…" read once more
		{`{"raw":"{\"pw\": \"p\\u00e4ssw\\u00f6rd<&>9\"}"}`, `{"raw":"{\"pw\": \"‹masked: writeOnly /pw›\"}"}`},
		{`{"q":"\"p\\\\u00e4ssw\\\\u00f6rd<&>9\""}`, `{"q":"\"‹masked: writeOnly /pw›\""}`},
		{`{"bad":"\ud83d pässwörd<&>9"}`, `{"bad":"\ud83d ‹masked: writeOnly /pw›"}`},
	} {
		got, n := MaskEchoesJSON(json.RawMessage(tc.in), echoes)
		if string(got) != tc.want || !json.Valid(got) {
			t.Errorf("MaskEchoesJSON(%s) = %s (%d), want %s", tc.in, got, n, tc.want)
		}
	}
	if got, n := MaskEchoes([]byte(`stderr: key=p\u00e4ssw\u00f6rd<&>9 done`), echoes); n != 1 || string(got) != `stderr: key=‹masked: writeOnly /pw› done` {
		t.Errorf("stderr: %s (%d)", got, n)
	}
}

// TestEchoPrefixLenEscaped: a chunk that ends inside an escaped secret,
// or inside an escape, is held back from where the secret would begin.
func TestEchoPrefixLenEscaped(t *testing.T) {
	echoes := []Echo{{Pointer: "/pw", Why: "writeOnly", Value: "päss😀x"}}
	for in, want := range map[string]int{
		`x p\u00e4`:          len(`p\u00e4`),
		`x p\u00`:            len(`p\u00`),
		`x p\u00e4ss\ud83d`:  len(`p\u00e4ss\ud83d`),
		`x p\u00e4ss\ud83d\`: len(`p\u00e4ss\ud83d\`),
		`x \`:                1,
		`x \\`:               0,
		`x \u00e4`:           0,
		`x \u0070`:           len(`\u0070`),
		`x \u0070\u00e4ss`:   len(`\u0070\u00e4ss`),
	} {
		if got := EchoPrefixLen([]byte(in), echoes); got != want {
			t.Errorf("EchoPrefixLen(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestMaskEchoesNumberSpellings: a secret of digits sent back as a
// number spelt otherwise (a sign, a fraction, an exponent) is masked.
func TestMaskEchoesNumberSpellings(t *testing.T) {
	echoes := []Echo{{Pointer: "/pin", Why: "writeOnly", Value: "48213"}}
	for _, in := range []string{`[-48213]`, `[48213.0]`, `[48213e0]`, `[0.48213]`, `{"a":148213}`, `[4.8213e4]`, `[4821.3E+1]`, `{"x":"ok","n":482.13e2}`} {
		got, n := MaskEchoesJSON(json.RawMessage(in), echoes)
		if n == 0 || strings.Contains(string(got), "48213") || strings.Contains(string(got), "8213") || !json.Valid(got) {
			t.Errorf("MaskEchoesJSON(%s) = %s (%d)", in, got, n)
		}
	}
	// With nothing to mask, the bytes stay as sent.
	if got, n := MaskEchoesJSON(json.RawMessage(`{"n": 1.5e3,  "s":"\u00e4"}`), echoes); n != 0 || string(got) != `{"n": 1.5e3,  "s":"\u00e4"}` {
		t.Errorf("nothing to mask: %s (%d)", got, n)
	}
}

// TestMaskEchoesNumbersInText: a numeric secret written otherwise in
// text (stderr, a raw stdout) is masked where it stands alone; a number
// inside a word, one too short to be taken for an echo, and a label's
// own pointer are left.
func TestMaskEchoesNumbersInText(t *testing.T) {
	echoes := []Echo{{Pointer: "/pin", Why: "writeOnly", Value: "48213"}, {Pointer: "/zero", Why: "writeOnly", Value: "0000"}}
	label := echoes[0].Label()
	for in, want := range map[string]string{
		"total 4.8213E+04\n":                  "total " + label + "\n",
		`{"ok":true,"result":{"n":4.8213e4}}`: `{"ok":true,"result":{"n":` + label + `}}`,
		"-482.13e2 and 4.8213e+4":             label + " and " + label,
		"it was 4.8213e4. Then 482.13e2.":     "it was " + label + ". Then " + label + ".",
		"v4.8213e4 x4.8213e4y 4.8213e4.1":     "v4.8213e4 x4.8213e4y 4.8213e4.1",
		"0 and 0.0 stay":                      "0 and 0.0 stay",
		"48213":                               label,
	} {
		if got, _ := MaskEchoes([]byte(in), echoes); string(got) != want {
			t.Errorf("MaskEchoes(%q)\n got %q\nwant %q", in, got, want)
		}
	}
	// A label's pointer is not taken for a number written otherwise.
	idx := []Echo{{Pointer: "/items/12345", Why: "writeOnly", Value: "sk-aaaa"}, {Pointer: "/n", Why: "writeOnly", Value: "1.2345e4"}}
	if got, _ := MaskEchoes([]byte("sk-aaaa"), idx); string(got) != idx[0].Label() {
		t.Errorf("a label's pointer was masked: %q", got)
	}
	// Many echoes (one matcher) mask the same.
	many := append([]Echo{}, echoes...)
	for i := range manyEchoes {
		many = append(many, Echo{Pointer: fmt.Sprintf("/s/%d", i), Why: "writeOnly", Value: fmt.Sprintf("other-%02d", i)})
	}
	sortEchoes(many)
	if got, _ := MaskEchoes([]byte("total 4.8213E+04"), many); string(got) != "total "+label {
		t.Errorf("many echoes: %q", got)
	}
}

// TestNumberEcho: a number the host keeps typed (a cost, a percent) holds
// a secret equal in value or among its digits.
func TestNumberEcho(t *testing.T) {
	echoes := []Echo{{Pointer: "/pin", Why: "writeOnly", Value: "48213"}, {Pointer: "/p", Why: "writeOnly", Value: "12.75"}, {Pointer: "/z", Why: "writeOnly", Value: "0000"}}
	for f, want := range map[float64]string{48213: "/pin", 148213.5: "/pin", 12.75: "/p", 1275: "", 0: "", 3.5: ""} {
		e, ok := NumberEcho(f, echoes)
		if ok != (want != "") || ok && e.Pointer != want {
			t.Errorf("NumberEcho(%v) = %v %v, want %q", f, e, ok, want)
		}
	}
}

// TestMaskEchoesGoQuoted: the host's verdicts quote a module's text with
// %q, whose escapes (\U000e0001, \a) are not JSON's: masked whole, and a
// cut one's start dropped.
func TestMaskEchoesGoQuoted(t *testing.T) {
	v := "Zq7X\U000e0001wK3vP9mT\a"
	echoes := []Echo{{Pointer: "/k", Why: "writeOnly", Value: v}}
	for _, in := range []string{fmt.Sprintf("module: is %q but", v), fmt.Sprintf("%+q", v)} {
		if got, n := MaskEchoes([]byte(in), echoes); n == 0 || strings.Contains(string(got), "wK3v") {
			t.Errorf("MaskEchoes(%s) = %s", in, got)
		}
	}
	quoted := fmt.Sprintf("%q", v)
	cut := "got " + quoted[:12] + "…"
	if got := MaskCutEchoes(cut, echoes); strings.Contains(got, "Zq7X") {
		t.Errorf("MaskCutEchoes(%s) = %s", cut, got)
	}
}

// TestMaskCutEchoes: host text quoting a module's value cut short keeps
// no part of a secret beside the cut: an end that begins one before
// "…" (inside or outside the quote), a start that ends one after it,
// escaped or not; whole copies are masked as ever.
func TestMaskCutEchoes(t *testing.T) {
	echoes := []Echo{{Pointer: "/k", Why: "writeOnly", Value: "sk-live-ABCDEFGHIJ"}}
	for in, want := range map[string]string{
		`ok: got a string "sk-live-ABCD…`:                      `ok: got a string "…`,
		`stdout starts with "x sk-live-ABCDEFGHIJ sk-li"…, no`: `stdout starts with "x ‹masked: writeOnly /k› "…, no`,
		`warning {"code":"\u0073\u006b-li…`:                    `warning {"code":"…`,
		`stderr: …FGHIJ done | next`:                           `stderr: … done | next`,
		`cut … here, and sk-live-AB at rest`:                   `cut … here, and sk-live-AB at rest`,
	} {
		if got := MaskCutEchoes(in, echoes); got != want {
			t.Errorf("MaskCutEchoes(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestDynamicRefSecretMasked: a writeOnly schema a "$dynamicRef" may land
// on (the outermost "$dynamicAnchor" of its name, which validation
// follows, not the static target) makes the value a secret.
func TestDynamicRefSecretMasked(t *testing.T) {
	h, err := Compile(json.RawMessage(`{"$id":"https://e.example/dyn.req/v1","type":"object",
		"properties":{"keys":{"$ref":"list"}},
		"$defs":{"secretItem":{"$dynamicAnchor":"item","type":"string","writeOnly":true},
			"list":{"$id":"list","type":"array","items":{"$dynamicRef":"#item"},
				"$defs":{"default":{"$dynamicAnchor":"item","type":"string"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	es := Echoes(h, json.RawMessage(`{"keys":["hunter2dynamic"]}`))
	if len(es) != 1 || es[0].Value != "hunter2dynamic" || es[0].Pointer != "/keys/0" {
		t.Fatalf("echoes %+v (anchors %v)", es, h.dynamicAnchors())
	}
}

// TestRecursiveRefSecretMasked: a "$recursiveRef" lands, as validation
// has it, on the outermost "$recursiveAnchor": true, whose writeOnly
// property makes the value a secret there too.
func TestRecursiveRefSecretMasked(t *testing.T) {
	h, err := Compile(json.RawMessage(`{"$schema":"https://json-schema.org/draft/2019-09/schema","$id":"https://e.example/rec2.req/v1","$recursiveAnchor":true,"type":"object",
		"properties":{"keys":{"$ref":"list"},"pw":{"writeOnly":true,"type":"string"}},
		"$defs":{"list":{"$id":"list","$recursiveAnchor":true,"items":{"$recursiveRef":"#"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	es := Echoes(h, json.RawMessage(`{"keys":[{"pw":"hunter2recursive"}]}`))
	if len(es) != 1 || es[0].Value != "hunter2recursive" || es[0].Pointer != "/keys/0/pw" {
		t.Fatalf("echoes %+v", es)
	}
}
