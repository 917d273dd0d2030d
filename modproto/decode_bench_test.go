package modproto

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/internal/testcorpus"
)

// The decoders' cost over what a hostile module can send within the
// bounds (max_output_bytes for an invoke, runner.DescribeMaxOutputBytes
// for a describe): per shape, at 1 MiB and 4 MiB. Run with
//
//	go test ./modproto/ -run '^$' -bench 'Decode' -benchtime 3x
//
// BenchmarkDecodeEnvelope is the host's reading of an invoke's stdout
// (DecodeEnvelope, ValidateEnvelope); BenchmarkDecodeDescriptor its
// reading of a describe's (the envelope, its strict key walk, the
// descriptor's duplicate keys, decoding, strict walk, validation), the
// work `modbay validate` does before compiling schemas.

// benchSizes are the sizes measured: the default max_output_bytes and
// the describe bound.
var benchSizes = []int{1 << 20, 4 << 20}

// hostileShape builds a JSON value of about n bytes.
type hostileShape struct {
	name string
	// value is the payload: an invoke's result, or a descriptor's unknown
	// key "x" (or, for fields, the descriptor's own members).
	value func(n int) string
	// fields, when set, are descriptor members (without braces) used in
	// place of the skeleton's.
	fields func(n int) string
	// refused: the decoder must refuse it (duplicate keys).
	refused bool
}

// fill repeats unit(i) between open and close until about n bytes.
func fill(n int, open, close, sep string, unit func(i int) string) string {
	var b strings.Builder
	b.Grow(n + 64)
	b.WriteString(open)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(unit(i))
	}
	b.WriteString(close)
	return b.String()
}

// nest is depth arrays, or objects under key "a", one in another.
func nest(depth int, objects bool) string {
	if objects {
		return strings.Repeat(`{"a":`, depth) + "0" + strings.Repeat("}", depth)
	}
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// benchDepth leaves room above a nested payload for the envelope, the
// descriptor and the array holding the payloads, within MaxKeyDepth.
const benchDepth = MaxKeyDepth - 4

// capabilityUnit is capability i with its own request schema.
func capabilityUnit(i int) string {
	return fmt.Sprintf(`{"id":"cap.c%d","title":"C %d","summary":"Does thing %d.","request_schema":"cap.c%d.request/v1","result_schema":"","artifact_schemas":[],"effects":{"local":true,"network":false,"external_writes":false,"provider":"local","cost_known":true},"skills":[],"long_running":false}`, i, i, i, i)
}

var hostileShapes = []hostileShape{
	{name: "keys", value: func(n int) string {
		return fill(n, "{", "}", ",", func(i int) string { return fmt.Sprintf(`"k%d":0`, i) })
	}},
	{name: "deep-arrays", value: func(n int) string {
		return fill(n, "[", "]", ",", func(int) string { return nest(benchDepth, false) })
	}},
	{name: "deep-objects", value: func(n int) string {
		return fill(n, "[", "]", ",", func(int) string { return nest(benchDepth, true) })
	}},
	{name: "numbers", value: func(n int) string {
		return fill(n, "[", "]", ",", func(i int) string { return fmt.Sprint(i % 10) })
	}},
	{name: "escapes", value: func(n int) string {
		return `"` + strings.Repeat(`\u0000`, n/6) + `"`
	}},
	{name: "capabilities", fields: func(n int) string {
		caps := fill(n/2, "[", "]", ",", capabilityUnit)
		k := strings.Count(caps, `"id":`)
		var s strings.Builder
		s.WriteString("{")
		for i := range k {
			if i > 0 {
				s.WriteString(",")
			}
			fmt.Fprintf(&s, `"cap.c%d.request/v1":{"$id":"https://example.com/cap.c%d.request/v1","type":"object","properties":{"n":{"type":"integer"}}}`, i, i)
		}
		s.WriteString("}")
		schemas := s.String()
		return `"module":"bench.mod","name":"Bench","version":"1.0.0","protocol_versions":["xibodev.module/v1"],"capabilities":` + caps + `,"request_schemas":` + schemas + `,"result_schemas":{},"artifact_schemas":{}`
	}},
	{name: "schema-keys", fields: func(n int) string {
		// One request schema of many tiny keys: opaque module data,
		// read by the $id rule (docs/protocol.md §9).
		schema := fill(n, `{"$id":"https://example.com/run.request/v1",`, "}", ",", func(i int) string { return fmt.Sprintf(`"k%d":0`, i) })
		return `"module":"bench.mod","name":"Bench","version":"1.0.0","protocol_versions":["xibodev.module/v1"],"capabilities":[{"id":"run","summary":"Runs.","request_schema":"run.request/v1","effects":{"local":true}}],"request_schemas":{"run.request/v1":` + schema + `},"result_schemas":{},"artifact_schemas":{}`
	}},
	{name: "duplicates", refused: true, value: func(n int) string {
		o := fill(n, "{", "", ",", func(i int) string { return fmt.Sprintf(`"k%d":0`, i) })
		return o + `,"k0":1}`
	}},
}

// skeleton is a valid descriptor's members, without braces.
const skeleton = `"module":"bench.mod","name":"Bench","version":"1.0.0","protocol_versions":["xibodev.module/v1"],"capabilities":[{"id":"run","summary":"Runs.","request_schema":"run.request/v1","effects":{"local":true}}],"request_schemas":{"run.request/v1":{"type":"object"}},"result_schemas":{},"artifact_schemas":{}`

// describeEnvelope wraps a descriptor in a describe envelope.
func describeEnvelope(descriptor string) []byte {
	return []byte(`{"protocol":"xibodev.module/v1","module":"bench.mod","operation":"describe","request_id":"","ok":true,"result":` + descriptor + `,"warnings":[],"execution":{"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]}}`)
}

// invokeEnvelope is an invoke envelope whose result is value.
func invokeEnvelope(value string) []byte {
	return []byte(`{"protocol":"xibodev.module/v1","module":"bench.mod","operation":"invoke","request_id":"r1","ok":true,"result":` + value + `,"warnings":[],"execution":{"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]}}`)
}

// hostileDescriptor is shape s as a descriptor of about n bytes.
func hostileDescriptor(s hostileShape, n int) string {
	if s.fields != nil {
		return "{" + s.fields(n) + "}"
	}
	if s.name == "keys" || s.name == "duplicates" {
		// The descriptor's own members: every key unknown, in an object
		// the host decodes into a struct (case variants checked).
		v := s.value(n)
		return "{" + skeleton + "," + v[1:]
	}
	return "{" + skeleton + `,"x":` + s.value(n) + "}"
}

// corpusDescribe is the largest describe of the corpus (facet's).
func corpusDescribe(b *testing.B) []byte {
	dir := testcorpus.Dir(b, "modules")
	raw, err := os.ReadFile(filepath.Join(dir, "facet", "fixtures", "module", "describe.json"))
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// judgeDescribeBytes is what the host runs on a describe's stdout before
// compiling schemas (runner's judgeDescribe, without the module).
func judgeDescribeBytes(stdout []byte) error {
	env, err := DecodeEnvelope(stdout)
	if err != nil {
		return err
	}
	_, _ = CheckEnvelopeKeys(stdout)
	if v := ValidateEnvelope(env, OperationDescribe, "", ""); len(v) > 0 {
		return v
	}
	_, _ = CheckDescriptorKeys(env.Result)
	d, err := DecodeDescriptor(env.Result)
	if err != nil {
		return err
	}
	_ = CheckDescriptorShape(d)
	return ValidateDescriptor(d).Err()
}

func decodeInvoke(stdout []byte) error {
	env, err := DecodeEnvelope(stdout)
	if err != nil {
		return err
	}
	return ValidateEnvelope(env, OperationInvoke, "r1", "bench.mod").Err()
}

func runDecodeBench(b *testing.B, in []byte, refused bool, f func([]byte) error) {
	b.Helper()
	if err := f(in); (err != nil) != refused {
		b.Fatalf("refused=%v, got %v", refused, err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		_ = f(in)
	}
}

// BenchmarkDecodeEnvelope: an invoke's stdout whose result is each
// hostile shape, and the corpus's largest envelope.
func BenchmarkDecodeEnvelope(b *testing.B) {
	for _, s := range hostileShapes {
		for _, n := range benchSizes {
			v := ""
			if s.fields != nil {
				v = "{" + s.fields(n) + "}"
			} else {
				v = s.value(n)
			}
			in := invokeEnvelope(v)
			b.Run(fmt.Sprintf("%s/%dMiB", s.name, n>>20), func(b *testing.B) {
				runDecodeBench(b, in, s.refused, decodeInvoke)
			})
		}
	}
	b.Run("corpus-facet", func(b *testing.B) {
		in := corpusDescribe(b)
		runDecodeBench(b, in, false, func(p []byte) error { _, err := DecodeEnvelope(p); return err })
	})
}

// BenchmarkDecodeDescriptor: a describe's stdout whose descriptor holds
// each hostile shape, judged as the host judges it; and the corpus's
// largest describe.
func BenchmarkDecodeDescriptor(b *testing.B) {
	for _, s := range hostileShapes {
		for _, n := range benchSizes {
			in := describeEnvelope(hostileDescriptor(s, n))
			if len(in) > 4<<20+4096 {
				b.Fatalf("%s: %d bytes", s.name, len(in))
			}
			b.Run(fmt.Sprintf("%s/%dMiB", s.name, n>>20), func(b *testing.B) {
				runDecodeBench(b, in, s.refused, judgeDescribeBytes)
			})
		}
	}
	b.Run("corpus-facet", func(b *testing.B) {
		runDecodeBench(b, corpusDescribe(b), false, judgeDescribeBytes)
	})
}

// TestHostileShapesDecode keeps the benchmarks' inputs honest: each is
// a describe the host accepts (or, for duplicates, refuses for its keys),
// within the depth bound.
func TestHostileShapesDecode(t *testing.T) {
	for _, s := range hostileShapes {
		err := judgeDescribeBytes(describeEnvelope(hostileDescriptor(s, 64<<10)))
		if s.refused {
			if err == nil || !strings.Contains(err.Error(), "twice") {
				t.Errorf("%s: want a duplicate key refusal, got %v", s.name, err)
			}
		} else if err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
	}
}
