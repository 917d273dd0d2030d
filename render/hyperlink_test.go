package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestMarkdownHyperlinksOnlyForWebAndMail: a rendered link is an OSC 8
// hyperlink only for http, https and mailto; a javascript: or file: link
// is plain text with its address.
func TestMarkdownHyperlinksOnlyForWebAndMail(t *testing.T) {
	src := "see [x](javascript:alert(1)) and [y](https://a.example/) and <file:///etc/passwd> and [m](mailto:a@b.example)\n"
	out, err := Markdown([]byte(src), Options{Width: 200})
	if err != nil {
		t.Fatal(err)
	}
	for _, unsafe := range []string{";javascript:alert(1)\x07", ";file:///etc/passwd\x07"} {
		if strings.Contains(out, unsafe) {
			t.Errorf("an OSC 8 hyperlink to %q is emitted: %q", unsafe, out)
		}
	}
	for _, safe := range []string{";https://a.example/\x07", ";mailto:a@b.example\x07"} {
		if !strings.Contains(out, safe) {
			t.Errorf("no hyperlink %q: %q", safe, out)
		}
	}
	plain := ansi.Strip(out)
	for _, shown := range []string{"javascript:alert(1)", "file:///etc/passwd"} {
		if !strings.Contains(plain, shown) {
			t.Errorf("the address %q is not shown as text: %q", shown, plain)
		}
	}
	if opens, closes := strings.Count(out, "\x1b]8;id="), strings.Count(out, "\x1b]8;;"); opens != closes {
		t.Errorf("%d hyperlinks opened, %d closed: %q", opens, closes, out)
	}
}
