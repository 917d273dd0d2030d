package render

import (
	"bytes"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// Text encodings DecodeText names. Plain UTF-8 without a byte-order mark is
// the norm and is named "" (nothing to say).
const (
	EncodingUTF8BOM = "UTF-8 (byte-order mark)"
	EncodingUTF16LE = "UTF-16LE (byte-order mark)"
	EncodingUTF16BE = "UTF-16BE (byte-order mark)"
	EncodingUTF32LE = "UTF-32LE (byte-order mark)"
	EncodingUTF32BE = "UTF-32BE (byte-order mark)"
	// EncodingUTF16LEGuess and EncodingUTF16BEGuess are UTF-16 without a
	// byte-order mark, recognised by its NUL bytes (see DecodeText).
	EncodingUTF16LEGuess = "UTF-16LE (no byte-order mark, from its NUL bytes)"
	EncodingUTF16BEGuess = "UTF-16BE (no byte-order mark, from its NUL bytes)"
)

const (
	// utf16SniffBytes is how much of a BOM-less file DecodeText looks at to
	// recognise UTF-16 by where its NUL bytes are.
	utf16SniffBytes = 4 << 10
	// utf16NulShare is the share of the sniffed code units whose high byte
	// must be NUL (ASCII in UTF-16) for BOM-less text to count as UTF-16;
	// the other half of the units must hold no NUL at all. Binary data has
	// NULs on both sides.
	utf16NulShare = 0.5
)

// DecodeText returns src as UTF-8 text and the name of the encoding it was
// decoded from: by its byte-order mark (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE;
// the mark is dropped), else UTF-16 without a mark when at least half of
// the first 4 KiB's 16-bit units have a NUL high byte and none has a NUL
// low byte (ASCII text saved as "Unicode text"). Anything else is returned
// as is with the name "": UTF-8, or bytes IsBinary judges. Invalid
// sequences in a decoded file become U+FFFD. Spreadsheets save "Unicode
// text" as UTF-16LE with a mark; shown raw, every other byte is a NUL.
func DecodeText(src []byte) ([]byte, string) {
	var enc encoding.Encoding
	name := ""
	switch {
	case bytes.HasPrefix(src, []byte{0xFF, 0xFE, 0, 0}):
		enc, name = utf32.UTF32(utf32.LittleEndian, utf32.ExpectBOM), EncodingUTF32LE
	case bytes.HasPrefix(src, []byte{0, 0, 0xFE, 0xFF}):
		enc, name = utf32.UTF32(utf32.BigEndian, utf32.ExpectBOM), EncodingUTF32BE
	case bytes.HasPrefix(src, []byte{0xFF, 0xFE}):
		enc, name = unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM), EncodingUTF16LE
	case bytes.HasPrefix(src, []byte{0xFE, 0xFF}):
		enc, name = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), EncodingUTF16BE
	case bytes.HasPrefix(src, []byte(utf8BOM)):
		return src[len(utf8BOM):], EncodingUTF8BOM
	default:
		switch utf16Order(src) {
		case 'L':
			enc, name = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), EncodingUTF16LEGuess
		case 'B':
			enc, name = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), EncodingUTF16BEGuess
		default:
			return src, ""
		}
	}
	out, err := enc.NewDecoder().Bytes(src)
	if err != nil {
		// The decoders replace invalid units with U+FFFD; an error here is
		// a mark with nothing valid after it. Show the bytes as they are.
		return src, ""
	}
	return out, name
}

// utf16Order recognises BOM-less UTF-16 of mostly-ASCII text: 'L' when the
// odd bytes of the first units are NUL often enough and the even bytes
// never, 'B' for the mirror image, 0 otherwise.
func utf16Order(src []byte) byte {
	head := src[:min(len(src), utf16SniffBytes)&^1]
	units := len(head) / 2
	if units < 2 {
		return 0
	}
	var even, odd int
	for i := 0; i < len(head); i += 2 {
		if head[i] == 0 {
			even++
		}
		if head[i+1] == 0 {
			odd++
		}
	}
	switch {
	case even == 0 && float64(odd) >= utf16NulShare*float64(units):
		return 'L'
	case odd == 0 && float64(even) >= utf16NulShare*float64(units):
		return 'B'
	}
	return 0
}
