package render

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// hostileMarkdown puts terminal escapes everywhere markdown can carry text.
const hostileMarkdown = "# Title \x1b]0;pwned\x07\n\n" +
	"Paragraph \x1b[2J\x1b[H with clear-screen and \x1b]52;c;ZXZpbA==\x07 clipboard.\n\n" +
	"A [link](http://ok.example/\x1b]8;;http://evil\x1b\\) and \x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\.\n\n" +
	"`inline \x1b[31m code`\n\n" +
	"```go\nfmt.Println(\"\x1b[5m blink\")\n```\n\n" +
	"| a | b |\n|---|---|\n| \x1b[41mcell | \u009b31m |\n\n" +
	"- item \x1bP dcs \x1b\\\n- item \u202Eevil\n\n" +
	"<span>\x1b_apc\x1b\\</span>\n"

func TestMarkdownGolden(t *testing.T) {
	for _, name := range []string{
		"markdown-test-file__TEST.md",
		"glamour__issue-46_2_wide-cells-table.md",
		"openai-skills__notion-conversation-to-faq.md",
	} {
		t.Run(strings.TrimSuffix(name, ".md"), func(t *testing.T) {
			out, err := Markdown(readCorpus(t, filepath.Join("markdown", name)), Options{Width: 80, NoColor: true})
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, out, 80, true)
			golden.RequireEqual(t, []byte(out))
		})
	}
}

func TestMarkdownCorpus(t *testing.T) {
	for _, path := range corpusFiles(t, "markdown") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			src := readFile(t, path)
			// Every width without color and on dark; light styling differs
			// only in colors, so one width of it is enough.
			opts := []Options{{Width: 80}}
			for _, width := range sweepWidths {
				opts = append(opts, Options{Width: width, NoColor: true}, Options{Width: width, Dark: true})
			}
			for _, o := range opts {
				out, err := Markdown(src, o)
				if err != nil {
					t.Errorf("%+v: %v", o, err)
					continue
				}
				if strings.TrimSpace(out) == "" {
					t.Errorf("%+v: empty output", o)
				}
				checkOutput(t, out, o.Width, o.NoColor)
			}
		})
	}
}

func TestMarkdownHostile(t *testing.T) {
	for _, o := range []Options{{Width: 60, NoColor: true}, {Width: 60, Dark: true}, {Width: 60}} {
		out, err := Markdown([]byte(hostileMarkdown), o)
		if err != nil {
			t.Fatal(err)
		}
		checkOutput(t, out, 60, o.NoColor)
		if o.NoColor && strings.Contains(out, "\x1b") {
			t.Errorf("NoColor output holds an ESC byte")
		}
		for _, bad := range []string{"\x1b]52", "\x1b[2J", "\x1b[H", "\x1b]0;", "\x1b]8;;http://evil", "\x1bP", "\x1b_", "\x1b[5m", "\x1b[41m"} {
			if strings.Contains(out, bad) {
				t.Errorf("%+v: hostile sequence %q survived", o, bad)
			}
		}
		// The person can still see that something was there.
		for _, seen := range []string{"␛[2J", "␛]52;c;ZXZpbA==", "click"} {
			if !strings.Contains(ansi.Strip(out), seen) {
				t.Errorf("%+v: output lacks the visible stand-in %q", o, seen)
			}
		}
	}
}

func TestMarkdownOptions(t *testing.T) {
	src := []byte("# Heading\n\nSome *emphasis*, a [link](https://example.com) and `code`.\n\n\tindented code\n")
	tests := []struct {
		name      string
		o         Options
		wantESC   bool
		wantWidth int
	}{
		{"no color has no escapes", Options{Width: 40, NoColor: true}, false, 40},
		{"dark is styled", Options{Width: 40, Dark: true}, true, 40},
		{"light is styled", Options{Width: 40}, true, 40},
		{"tiny width clamps to MinWidth", Options{Width: 5, NoColor: true}, false, MinWidth},
		{"zero width is DefaultWidth", Options{NoColor: true}, false, DefaultWidth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Markdown(src, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(out, "\x1b"); got != tt.wantESC {
				t.Errorf("contains ESC = %v, want %v", got, tt.wantESC)
			}
			checkOutput(t, out, tt.wantWidth, tt.o.NoColor)
			for _, want := range []string{"Heading", "emphasis", "https://example", "indented code"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "\t") {
				t.Errorf("output keeps a tab")
			}
		})
	}
	dark, _ := Markdown(src, Options{Width: 40, Dark: true})
	light, _ := Markdown(src, Options{Width: 40})
	if dark == light {
		t.Errorf("dark and light renderings are identical")
	}
}

func TestMarkdownTooLarge(t *testing.T) {
	src := []byte(strings.Repeat("# big \x1b[2J\n", MaxMarkdownBytes/10))
	out, err := Markdown(src, Options{Width: 80, NoColor: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "Markdown over 2.0 MiB shown as plain text.") || !strings.Contains(out, "\n# big ␛[2J\n") {
		t.Errorf("large markdown not shown as plain text: %q", out[:min(len(out), 200)])
	}
	checkOutput(t, out, 80, true)
}

// With NoColor and Attributes (the cockpit under NO_COLOR or vt100),
// strong text is bold and emphasis underlined, not "**x**"; no colour
// and no hyperlink is sent. Without Attributes NoColor sends no escape.
func TestMarkdownAttributesWithoutColour(t *testing.T) {
	src := []byte("# Runs\n\nThere were **135** runs, *all* [listed](https://x.example/runs).\n\n- **bold** item\n")
	out, err := Markdown(src, Options{Width: 80, NoColor: true, Attributes: true})
	if err != nil {
		t.Fatal(err)
	}
	plain := ansi.Strip(out)
	if strings.Contains(plain, "**") || strings.Contains(plain, "*all*") || !strings.Contains(plain, "There were 135 runs, all listed") {
		t.Errorf("emphasis shown as markers:\n%s", plain)
	}
	if !strings.Contains(out, "\x1b[1m135") || !strings.Contains(out, "\x1b[4mall") {
		t.Errorf("strong not bold or emphasis not underlined: %q", out)
	}
	for _, sgr := range sgrRe.FindAllStringSubmatch(out, -1) {
		for _, p := range strings.Split(sgr[1], ";") {
			switch p {
			case "", "0", "1", "4", "22", "24":
			default:
				t.Errorf("SGR %q is not an attribute: %q", sgr[0], out)
			}
		}
	}
	if strings.Contains(out, "\x1b]") {
		t.Errorf("a hyperlink under NoColor: %q", out)
	}
	piped, _ := Markdown(src, Options{Width: 80, NoColor: true})
	if strings.Contains(piped, "\x1b") {
		t.Errorf("NoColor without Attributes sends an escape: %q", piped)
	}
}

// sgrRe matches an SGR sequence and its parameters.
var sgrRe = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)
