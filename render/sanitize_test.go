package render

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain ascii unchanged", "hello, world", "hello, world"},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"unicode unchanged", "héllo 😄 日本", "héllo 😄 日本"},
		{"OSC 52 clipboard write", "\x1b]52;c;ZXZpbA==\x07", "␛]52;c;ZXZpbA==␇"},
		{"OSC 8 hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "␛]8;;http://evil␛\\click␛]8;;␛\\"},
		{"CSI clear screen and home", "\x1b[2J\x1b[H", "␛[2J␛[H"},
		{"SGR color", "\x1b[31mred\x1b[0m", "␛[31mred␛[0m"},
		{"C1 CSI", "\u009b31m", "␛[31m"},
		{"C1 OSC", "\u009d0;title\u009c", "␛]0;title␛\\"},
		{"DCS", "\x1bPq#0;2;0;0;0\x1b\\", "␛Pq#0;2;0;0;0␛\\"},
		{"APC PM SOS", "\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\", "␛_apc␛\\␛^pm␛\\␛Xsos␛\\"},
		{"lone carriage return", "a\rb", "a␍b"},
		{"CRLF becomes LF", "a\r\nb\r\n", "a\nb\n"},
		{"CR before CRLF", "a\r\r\nb", "a␍\nb"},
		{"NUL BEL BS", "a\x00b\x07c\x08d", "a␀b␇c␈d"},
		{"DEL", "a\x7fb", "a␡b"},
		{"form feed and vertical tab", "\f\v", "␌␋"},
		{"invalid UTF-8 bytes", "a\xffb\xc0", "a\uFFFDb\uFFFD"},
		{"raw 8-bit C1 byte is invalid UTF-8", "a\x9b31m", "a\uFFFD31m"},
		{"truncated multibyte", "\xe6\x97", "\uFFFD\uFFFD"},
		{"bidi override replaced", "abc\u202Edcb\u202C", "abc\uFFFDdcb\uFFFD"},
		{"bidi isolate replaced", "\u2066x\u2069", "\uFFFDx\uFFFD"},
		{"bidi marks kept", "a\u200Eb\u200Fc\u061C", "a\u200Eb\u200Fc\u061C"},
		{"replacement char kept", "\uFFFD", "\uFFFD"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sanitize(tt.in)
			if got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if p := inertProblem(got, true); p != "" {
				t.Errorf("Sanitize(%q) = %q is not inert: %s", tt.in, got, p)
			}
		})
	}
}

func TestSanitizeLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"newlines to spaces", "title\nsecond", "title second"},
		{"CRLF to one space", "a\r\nb", "a b"},
		{"lone CR to space", "a\rb", "a b"},
		{"tab to space", "a\tb", "a b"},
		{"escapes still inert", "\x1b[2Jx\n", "␛[2Jx "},
		{"clean unchanged", "My report (v2)", "My report (v2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SanitizeLine(tt.in)
			if got != tt.want {
				t.Errorf("SanitizeLine(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if strings.ContainsAny(got, "\n\r\t") {
				t.Errorf("SanitizeLine(%q) = %q keeps a line break or tab", tt.in, got)
			}
		})
	}
}

func TestExpandTabs(t *testing.T) {
	tests := []struct {
		in   string
		stop int
		want string
	}{
		{"\tx", 4, "    x"},
		{"ab\tx", 4, "ab  x"},
		{"abcd\tx", 4, "abcd    x"},
		{"a\tb\nc\td", 8, "a       b\nc       d"},
		{"日\tx", 4, "日  x"},
		{"no tabs", 4, "no tabs"},
	}
	for _, tt := range tests {
		if got := expandTabs(tt.in, tt.stop); got != tt.want {
			t.Errorf("expandTabs(%q, %d) = %q, want %q", tt.in, tt.stop, got, tt.want)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{
		"\x1b]52;c;ZXZpbA==\x07", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\",
		"\x1b[2J\x1b[H", "\u009b31m", "a\rb", "a\r\n", "\u202Eevil", "\xff\xfe", "",
	} {
		f.Add(s)
	}
	for _, dir := range []string{"markdown", "tables"} {
		for _, p := range corpusSeeds(f, dir) {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(string(b[:min(len(b), fuzzSeedBytes)]))
			}
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Sanitize(s)
		if p := inertProblem(got, true); p != "" {
			t.Fatalf("Sanitize(%q) = %q: %s", s, got, p)
		}
		if again := Sanitize(got); again != got {
			t.Fatalf("Sanitize is not idempotent on %q: %q then %q", s, got, again)
		}
		line := SanitizeLine(s)
		if p := inertProblem(line, false); p != "" || strings.Contains(line, "\n") {
			t.Fatalf("SanitizeLine(%q) = %q: %s", s, line, p)
		}
		if clean := inertProblem(s, true) == "" && !strings.Contains(s, "\r"); clean && got != s {
			t.Fatalf("Sanitize changed clean text %q to %q", s, got)
		}
		if utf8.ValidString(s) && utf8.RuneCountInString(got) < utf8.RuneCountInString(s)-strings.Count(s, "\r\n") {
			t.Fatalf("Sanitize(%q) = %q dropped characters", s, got)
		}
	})
}

// TestInvisibleCharactersShown: characters a terminal draws as nothing
// show as <U+XXXX>, so a secret split by a soft hyphen reads as split.
func TestInvisibleCharactersShown(t *testing.T) {
	for _, r := range []rune{'\u00AD', '\u034F', '\u115F', '\u1160', '\u17B4', '\u17B5', '\u180E', '\u3164', '\uFFA0', '\u200B', '\uFEFF'} {
		want := fmt.Sprintf("hun<U+%04X>ter2", r)
		if got := SanitizeLine("hun" + string(r) + "ter2"); got != want {
			t.Errorf("%U: %q, want %q", r, got, want)
		}
	}
	if got := Sanitize("a\u200Db"); got != "a\u200Db" {
		t.Errorf("the zero width joiner changed: %q", got)
	}
}
