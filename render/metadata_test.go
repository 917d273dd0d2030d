package render

import (
	"strings"
	"testing"
)

func TestMetadata(t *testing.T) {
	m := Meta{
		Title:     "Clip \x1b]52;c;ZXZpbA==\x07\nsecond line",
		Kind:      "video.clip",
		MediaType: "video/mp4",
		Digest:    "sha256:" + strings.Repeat("ab", 32),
		Path:      "out/clip.mp4",
		Bytes:     1536,
		Verified:  true,
	}
	for _, o := range []Options{{Width: 80, NoColor: true}, {Width: 20, NoColor: true}, {Width: 40, Dark: true}} {
		out := Metadata(m, o)
		checkOutput(t, out, o.width(), o.NoColor)
		plain := strings.Join(strings.Fields(stripForTest(out)), " ")
		for _, want := range []string{"Title", "␛]52;c;ZXZpbA==␇", "video.clip", "Presentation", "video", "1.5 KiB (1536 bytes)", "out/clip.mp4", "yes", "save"} {
			if !strings.Contains(plain, want) {
				t.Errorf("%+v: output lacks %q:\n%s", o, want, out)
			}
		}
		if joined := strings.Join(strings.Fields(plain), ""); !strings.Contains(joined, strings.Repeat("ab", 32)) {
			t.Errorf("%+v: digest not shown whole:\n%s", o, out)
		}
	}

	out := Metadata(m, Options{Width: 80, NoColor: true})
	lines := strings.Split(out, "\n")
	col := strings.Index(lines[0], "Clip")
	for _, l := range lines[1:6] {
		if strings.TrimSpace(l) != "" && strings.IndexFunc(l[col:], func(r rune) bool { return r != ' ' }) != 0 {
			t.Errorf("values not aligned at column %d: %q", col, l)
		}
	}

	// Empty fields are left out; unknown size is not shown as 0.
	sparse := Metadata(Meta{MediaType: "application/zip"}, Options{NoColor: true})
	for _, absent := range []string{"Title", "Kind", "Size", "Digest", "Path"} {
		if strings.Contains(sparse, absent) {
			t.Errorf("empty field %s shown:\n%s", absent, sparse)
		}
	}
	if !strings.Contains(sparse, "download") || !strings.Contains(sparse, "Verified") || !strings.Contains(sparse, "no") {
		t.Errorf("sparse block:\n%s", sparse)
	}
}

func TestHumanBytes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{1, "1 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"},
		{5 << 20, "5.0 MiB"}, {3 << 30, "3.0 GiB"}, {1 << 62, "4.0 EiB"},
	}
	for _, tt := range tests {
		if got := HumanBytes(tt.n); got != tt.want {
			t.Errorf("HumanBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
