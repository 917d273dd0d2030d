package render

import (
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16Bytes encodes s as UTF-16 in the given byte order, with a BOM when bom.
func utf16Bytes(s string, little, bom bool) []byte {
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xFEFF}, units...)
	}
	out := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if little {
			out = append(out, byte(u), byte(u>>8))
		} else {
			out = append(out, byte(u>>8), byte(u))
		}
	}
	return out
}

// utf32Bytes encodes s as UTF-32 with a BOM.
func utf32Bytes(s string, little bool) []byte {
	var out []byte
	for _, r := range append([]rune{0xFEFF}, []rune(s)...) {
		b := []byte{byte(r >> 24), byte(r >> 16), byte(r >> 8), byte(r)}
		if little {
			b[0], b[1], b[2], b[3] = b[3], b[2], b[1], b[0]
		}
		out = append(out, b...)
	}
	return out
}

const encodedCSV = "name,city\nZoë,Kraków\n東京,☃\n"

func TestDecodeText(t *testing.T) {
	for _, c := range []struct {
		name string
		src  []byte
		want string
		enc  string
	}{
		{"utf-8 plain", []byte(encodedCSV), encodedCSV, ""},
		{"utf-8 bom", append([]byte(utf8BOM), encodedCSV...), encodedCSV, EncodingUTF8BOM},
		{"utf-16le bom", utf16Bytes(encodedCSV, true, true), encodedCSV, EncodingUTF16LE},
		{"utf-16be bom", utf16Bytes(encodedCSV, false, true), encodedCSV, EncodingUTF16BE},
		{"utf-32le bom", utf32Bytes(encodedCSV, true), encodedCSV, EncodingUTF32LE},
		{"utf-32be bom", utf32Bytes(encodedCSV, false), encodedCSV, EncodingUTF32BE},
		{"utf-16le no bom", utf16Bytes(encodedCSV, true, false), encodedCSV, EncodingUTF16LEGuess},
		{"utf-16be no bom", utf16Bytes(encodedCSV, false, false), encodedCSV, EncodingUTF16BEGuess},
		{"binary with NULs both sides", []byte("\x00\x00\x01\x00\x00\x02\x03\x00"), "\x00\x00\x01\x00\x00\x02\x03\x00", ""},
		{"odd-length utf-16le bom", append(utf16Bytes("ab", true, true), 'c'), "ab\uFFFD", EncodingUTF16LE},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, enc := DecodeText(c.src)
			if string(got) != c.want || enc != c.enc {
				t.Errorf("DecodeText = %q, %q; want %q, %q", got, enc, c.want, c.enc)
			}
		})
	}
}

// TestArtifactUTF16CSV is the bug report's case: a CSV saved
// as "Unicode text" (UTF-16LE with a BOM) showed a NUL in every cell; text
// in UTF-16 was called binary.
func TestArtifactUTF16CSV(t *testing.T) {
	src := utf16Bytes(encodedCSV, true, true)
	o := Options{Width: 60, NoColor: true}
	out, err := Artifact(src, Meta{MediaType: "text/csv"}, o)
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, out, 60, true)
	for _, want := range []string{"Text decoded from UTF-16LE (byte-order mark).", "city", "Kraków", "東京"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x00␀") {
		t.Errorf("NULs shown:\n%s", out)
	}
	for _, mt := range []string{"text/plain", "text/markdown", "application/json"} {
		body := encodedCSV
		if mt == "application/json" {
			body = `{"city":"Kraków"}`
		}
		out, err := Artifact(utf16Bytes(body, false, true), Meta{MediaType: mt}, o)
		if err != nil {
			t.Fatalf("%s: %v", mt, err)
		}
		if !strings.Contains(out, "Kraków") || !strings.Contains(out, "UTF-16BE") || strings.Contains(out, "binary") {
			t.Errorf("%s: not shown as decoded text:\n%s", mt, out)
		}
	}
}
