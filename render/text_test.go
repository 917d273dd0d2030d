package render

import (
	"bytes"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	tests := []struct {
		name, in string
		width    int
		want     string
	}{
		{"short lines kept", "one\ntwo\n", 20, "one\ntwo\n"},
		{"CRLF normalised", "one\r\ntwo\r\n", 20, "one\ntwo\n"},
		{"escapes inert", "\x1b[2Jhi\x07", 20, "␛[2Jhi␇"},
		{"tabs to 8-column stops", "a\tb\n\tc", 20, "a       b\n        c"},
		{"word wrap", "the quick brown fox jumps over the lazy dog", 20, "the quick brown fox\njumps over the lazy\ndog"},
		{"long word broken", strings.Repeat("x", 25), 20, strings.Repeat("x", 20) + "\n" + strings.Repeat("x", 5)},
		{"wide characters", strings.Repeat("日", 15), 20, strings.Repeat("日", 10) + "\n" + strings.Repeat("日", 5)},
		{"width below minimum is clamped", strings.Repeat("y", 21), 3, strings.Repeat("y", 20) + "\ny"},
		{"empty", "", 20, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Text([]byte(tt.in), Options{Width: tt.width})
			if got != tt.want {
				t.Errorf("Text(%q, %d) =\n%q\nwant\n%q", tt.in, tt.width, got, tt.want)
			}
			checkOutput(t, got, max(tt.width, MinWidth), true)
		})
	}
	// Theme options do not add color to plain text.
	if a, b := Text([]byte("x"), Options{Dark: true}), Text([]byte("x"), Options{NoColor: true}); a != b {
		t.Errorf("Text differs by theme: %q vs %q", a, b)
	}
}

func TestIsBinary(t *testing.T) {
	utf8Text := bytes.Repeat([]byte("héllo wörld 日本 "), 1000) // > 8 KiB
	cut := append([]byte(strings.Repeat("a", binarySniffBytes-1)), "é"...)
	tests := []struct {
		name string
		in   []byte
		want bool
	}{
		{"empty", nil, false},
		{"ascii", []byte("hello\n"), false},
		{"utf-8 longer than the sniff window", utf8Text, false},
		{"rune cut by the sniff window", cut, false},
		{"NUL byte", []byte("abc\x00def"), true},
		{"NUL after 8 KiB is not seen", append(bytes.Repeat([]byte("a"), binarySniffBytes), 0), false},
		{"UTF-16 text has NULs", []byte("h\x00i\x00"), true},
		{"a few latin-1 bytes", []byte("caf\xe9 na\xefve r\xe9sum\xe9 and a lot more plain ascii text here to dilute"), false},
		{"mostly invalid", bytes.Repeat([]byte{0xff, 0xfe, 'a'}, 100), true},
		{"png header", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), true},
		{"escape sequences are still text", []byte("\x1b[31mred\x1b[0m\n"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsBinary(tt.in); got != tt.want {
				t.Errorf("IsBinary = %v, want %v", got, tt.want)
			}
		})
	}
}
