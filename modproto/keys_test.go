package modproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// withExtra splices members into validEnvelope's top-level object, or, with
// a path of "execution", into its execution object.
func withExtra(where, members string) []byte {
	switch where {
	case "execution":
		return []byte(strings.Replace(validEnvelope, `"execution":{`, `"execution":{`+members+`,`, 1))
	case "result":
		return []byte(strings.Replace(validEnvelope, `"result":{}`, `"result":{`+members+`}`, 1))
	}
	return []byte(strings.Replace(validEnvelope, `{`, `{`+members+`,`, 1))
}

// TestEnvelopeDuplicateKeys: an envelope naming a key twice, or two keys
// that differ only in case, in any host-read object, is a protocol
// violation that names the keys; case variants inside result (the module's
// own data) are allowed, exact duplicates are not.
func TestEnvelopeDuplicateKeys(t *testing.T) {
	artifact := `{"id":"a","kind":"k","root":"workspace","path":"p","media_type":"text/plain","digest":"sha256:` + strings.Repeat("0", 64) + `","bytes":1}`
	cases := []struct {
		name    string
		in      []byte
		refused bool
		want    string // in the detail when refused
	}{
		{"ok then OK", withExtra("", `"OK":false`), true, `"OK" and "ok"`},
		{"exact ok twice", withExtra("", `"ok":false`), true, `key "ok" twice`},
		{"Kelvin sign", []byte(strings.Replace(validEnvelope, `"ok":true`, `"ok":true,"o\u212a":false`, 1)), true, "differ only in case"},
		{"execution.network twice", withExtra("execution", `"NETWORK":true`), true, "execution has keys"},
		{"artifact path in two cases", []byte(strings.Replace(validEnvelope, `"artifacts":[]`, `"artifacts":[`+artifact+`,`+strings.Replace(artifact, `"path":"p"`, `"path":"p","Path":"/etc/passwd"`, 1)+`]`, 1)), true, "execution.artifacts[1]"},
		{"error code twice", []byte(strings.Replace(validEnvelope, `"ok":true,"result":{}`, `"ok":false,"error":{"code":"internal","message":"m","retryable":false,"details":{},"Code":"timeout"}`, 1)), true, "error has keys"},
		{"result exact duplicate", withExtra("result", `"a":1,"a":2`), true, `result names key "a" twice`},
		{"result case variants are data", withExtra("result", `"ID":1,"id":2`), false, ""},
		{"error.details case variants are data", []byte(strings.Replace(validEnvelope, `"ok":true,"result":{}`, `"ok":false,"error":{"code":"internal","message":"m","retryable":false,"details":{"X":1,"x":2}}`, 1)), false, ""},
		{"valid", []byte(validEnvelope), false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeEnvelope(c.in)
			if !c.refused {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var de *DecodeError
			if !errors.As(err, &de) || de.Code != CodeHostProtocolViolation {
				t.Fatalf("want a %s DecodeError, got %v", CodeHostProtocolViolation, err)
			}
			if !strings.Contains(de.Detail, c.want) || !strings.Contains(de.Detail, "one name per key") {
				t.Fatalf("detail %q does not say %q and cite the rule", de.Detail, c.want)
			}
		})
	}
}

// TestDescriptorDuplicateKeys: the same rule for a descriptor, except
// inside its schema maps, where a schema's properties "Name" and "name" are
// the module's business (an exact duplicate there is still refused).
func TestDescriptorDuplicateKeys(t *testing.T) {
	cases := []struct {
		in      string
		refused bool
	}{
		{`{"module":"m","Module":"evil"}`, true},
		{`{"capabilities":[{"id":"a","effects":{"network":false,"Network":true}}]}`, true},
		{`{"permissions":{"network":[],"network":["x"]}}`, true},
		{`{"request_schemas":{"s":{"properties":{"Name":{},"name":{}}}}}`, false},
		{`{"request_schemas":{"s":{},"S":{}}}`, false},
		{`{"request_schemas":{"s":{"type":"object","type":"string"}}}`, true},
		{`{"module":"m"}`, false},
	}
	for _, c := range cases {
		_, err := DecodeDescriptor([]byte(c.in))
		var dk *DuplicateKeyError
		if c.refused != errors.As(err, &dk) {
			t.Errorf("%s: refused=%v, want %v (err %v)", c.in, err != nil, c.refused, err)
		}
		if c.refused && (err == nil || !strings.Contains(err.Error(), "docs/protocol.md §9")) {
			t.Errorf("%s: error %v does not cite the rule", c.in, err)
		}
	}
}

// TestCheckKeysDepthBound: a deeply nested document is refused, not
// followed without bound.
func TestCheckKeysDepthBound(t *testing.T) {
	deep := strings.Repeat("[", MaxKeyDepth+1) + strings.Repeat("]", MaxKeyDepth+1)
	if err := CheckDuplicateEnvelopeKeys([]byte(deep)); err == nil {
		t.Fatal("a document deeper than MaxKeyDepth passed")
	}
	ok := strings.Repeat("[", 10) + strings.Repeat("]", 10)
	if err := CheckDuplicateEnvelopeKeys([]byte(ok)); err != nil {
		t.Fatal(err)
	}
}

// topLevelKeysUnique is the fuzz oracle: an independent count of the
// top-level keys, exact and folded with bytes.EqualFold.
func topLevelKeysUnique(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return true
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return true
		}
		k, _ := tok.(string)
		for _, prev := range keys {
			if bytes.EqualFold([]byte(prev), []byte(k)) {
				return false
			}
		}
		keys = append(keys, k)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return true
		}
	}
	return true
}
