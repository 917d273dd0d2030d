package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/modproto"
	"modbay/ui/dialog"
	"modbay/ui/internal/uitest"
	"modbay/ui/styles"
	"modbay/ui/viewer"
)

// decodeKey decodes what a terminal sends, as Bubble Tea's input reader
// does, into the key press the program receives.
func decodeKey(t *testing.T, raw string) tea.KeyPressMsg {
	t.Helper()
	var d uv.EventDecoder
	n, ev := d.Decode([]byte(raw))
	kp, ok := ev.(uv.KeyPressEvent)
	if !ok || n != len(raw) {
		t.Fatalf("%q decodes to %T (%d bytes), want one key press", raw, ev, n)
	}
	return tea.KeyPressMsg{Code: kp.Code, Mod: tea.KeyMod(kp.Mod), Text: kp.Text}
}

// Two esc presses that reach the program in one read (quick hands, or
// SSH) are ESC ESC, which decodes as alt+esc: the root backs out twice.
func TestEscEscBacksOutTwice(t *testing.T) {
	m, _ := newTest(t, nil, 80, 24)
	openForm(t, m, 0) // modules › capabilities › form
	kp := decodeKey(t, "\x1b\x1b")
	if kp.String() != "alt+esc" {
		t.Fatalf("ESC ESC decodes to %q; the binding assumes alt+esc", kp.String())
	}
	m.Update(kp)
	if m.screen() != screenModules {
		t.Fatalf("after esc esc the screen is %v, want modules (two screens back)", m.screen())
	}
	// From the capability list it is one back and one esc on the bottom
	// screen, which never leaves it.
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	m.Update(kp)
	if m.screen() != screenModules || len(m.stack) != 1 {
		t.Fatalf("stack %d deep on %v, want the module list alone", len(m.stack), m.screen())
	}
}

// The approval dialog's "(wait…)" goes at the end of the grace period
// without another key: opening the dialog schedules a message for then.
// It runs in a synctest bubble, whose clock moves only when every
// goroutine waits, so the schedule is checked exactly, whatever the load.
func TestApprovalGraceEndRedraws(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, clock := newTest(t, nil, 80, 24)
		openForm(t, m, 1)
		typeText(m, "Quarterly")
		press(m, "ctrl+s")
		_, cmd := m.Update(planMsg{seq: m.flow.planSeq, plan: uitest.Plan(t, m.flow.module)})
		if len(m.dialogs) != 1 || !strings.Contains(m.View().Content, "(wait…)") {
			t.Fatal("approval dialog with (wait…) did not open")
		}
		start := time.Now()
		got := waitFor(t, cmd, func(msg tea.Msg) bool { _, ok := msg.(graceEndMsg); return ok })
		if !got {
			t.Fatal("opening the approval dialog scheduled no redraw for the end of its grace")
		}
		if d := time.Since(start); d != dialog.GracePeriod {
			t.Errorf("redraw came after %v, want the grace period (%v)", d, dialog.GracePeriod)
		}
		clock.Advance(dialog.GracePeriod)
		m.com.Now = clock.Now
		m.Update(graceEndMsg{})
		if out := m.View().Content; strings.Contains(out, "(wait…)") {
			t.Errorf("(wait…) still shown after the grace:\n%s", ansi.Strip(out))
		}
	})
}

// waitFor runs cmd (and the commands of a batch) and reports whether one
// of them produced a message ok accepts.
func waitFor(t *testing.T, cmd tea.Cmd, ok func(tea.Msg) bool) bool {
	t.Helper()
	if cmd == nil {
		return false
	}
	msg := cmd()
	if b, isBatch := msg.(tea.BatchMsg); isBatch {
		for _, c := range b {
			if waitFor(t, c, ok) {
				return true
			}
		}
		return false
	}
	return ok(msg)
}

var (
	// wideColor matches SGR 256-color and true-color parameters.
	wideColor = regexp.MustCompile(`\x1b\[[0-9;]*[34]8;[25];`)
	// anyColor matches any SGR foreground or background color.
	anyColor = regexp.MustCompile(`\x1b\[([0-9;]*;)?(3[0-9]|4[0-9]|9[0-7]|10[0-7])(;[0-9;]*)?m`)
	// marked matches a reverse or bold attribute.
	marked = regexp.MustCompile(`\x1b\[([0-9;]*;)?[17](;[0-9;]*)?m`)
)

// through writes frame through a color profile, as Bubble Tea's renderer
// does with the profile the terminal reports.
func through(t *testing.T, p colorprofile.Profile, frame string) string {
	t.Helper()
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: p}
	if _, err := w.Write([]byte(frame)); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// Colors follow the terminal: frames drawn in color carry no 256-color or
// true-color code for vt100 or an 8-color xterm, and where color is gone
// the list cursor and the table cursor still show (a marker, reverse or
// bold).
func TestFramesDegradeWithTheTerminal(t *testing.T) {
	for _, term := range []string{"vt100", "xterm", "linux"} {
		p := colorprofile.Env([]string{"TERM=" + term})
		if p > colorprofile.ANSI {
			t.Errorf("TERM=%s is read as %v, more than 16 colors", term, p)
		}
	}
	m := newModel(nil, "", Options{Glyphs: styles.GlyphsUnicode})
	m.com.Now = uitest.NewClock().Now
	m.viewerEnv = viewer.Env{}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	withModules(t, m)
	list := m.View().Content
	if !wideColor.MatchString(list) {
		t.Fatal("the colored frame has no wide color to degrade: the test proves nothing")
	}
	for _, p := range []colorprofile.Profile{colorprofile.ANSI, colorprofile.Ascii} {
		out := through(t, p, list)
		if wideColor.MatchString(out) {
			t.Errorf("profile %v: 256/true-color codes left", p)
		}
		if p == colorprofile.Ascii && anyColor.MatchString(out) {
			t.Errorf("profile Ascii: colors left: %q", anyColor.FindString(out))
		}
		if !cursorShows(out, "Fake Module") {
			t.Errorf("profile %v: the list cursor is not visible", p)
		}
	}
	// The table cursor: reverse video, kept without color.
	v := viewerOf(t, "text/csv", "a,b\n1,2\n3,4\n")
	v.com.NoColor = false
	v.com.SetDark(true)
	v.restyle()
	table := v.View().Content
	if !anyColor.MatchString(table) {
		t.Fatal("the table frame has no color to degrade: the test proves nothing")
	}
	out := through(t, colorprofile.Ascii, table)
	if !marked.MatchString(out) {
		t.Errorf("table cursor invisible without color:\n%q", out)
	}
}

// cursorShows reports whether the line of frame holding name marks it as
// the cursor's: the "›" marker, or reverse or bold.
func cursorShows(frame, name string) bool {
	for l := range strings.SplitSeq(frame, "\n") {
		if strings.Contains(ansi.Strip(l), name) {
			return strings.Contains(l, "›") || marked.MatchString(l)
		}
	}
	return false
}

// The glyph set follows the locale and TERM, with MODBAY_GLYPHS over them.
func TestDetectGlyphs(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want styles.Glyphs
	}{
		{map[string]string{}, styles.GlyphsASCII},
		{map[string]string{"LC_ALL": "C"}, styles.GlyphsASCII},
		{map[string]string{"LANG": "POSIX"}, styles.GlyphsASCII},
		{map[string]string{"LANG": "en_US.UTF-8"}, styles.GlyphsUnicode},
		{map[string]string{"LANG": "de_DE.utf8@euro"}, styles.GlyphsUnicode},
		{map[string]string{"LC_ALL": "C", "LANG": "en_US.UTF-8"}, styles.GlyphsASCII},
		{map[string]string{"LC_CTYPE": "en_US.UTF-8", "LANG": "C"}, styles.GlyphsUnicode},
		{map[string]string{"LANG": "en_US.ISO-8859-1"}, styles.GlyphsASCII},
		{map[string]string{"MODBAY_GLYPHS": "unicode"}, styles.GlyphsUnicode},
		{map[string]string{"MODBAY_GLYPHS": "ascii", "LANG": "en_US.UTF-8"}, styles.GlyphsASCII},
		// A DEC VT has no UTF-8 whatever the locale says.
		{map[string]string{"TERM": "vt100", "LANG": "en_US.UTF-8"}, styles.GlyphsASCII},
		{map[string]string{"TERM": "vt220", "LC_ALL": "en_US.UTF-8"}, styles.GlyphsASCII},
		{map[string]string{"TERM": "vt100-am", "LANG": "en_US.UTF-8"}, styles.GlyphsASCII},
		{map[string]string{"TERM": "vt100", "LANG": "en_US.UTF-8", "MODBAY_GLYPHS": "unicode"}, styles.GlyphsUnicode},
		{map[string]string{"TERM": "linux", "LANG": "en_US.UTF-8"}, styles.GlyphsUnicode},
		{map[string]string{"TERM": "vte-256color", "LANG": "en_US.UTF-8"}, styles.GlyphsUnicode},
		{map[string]string{"TERM": "xterm-256color", "LANG": "en_US.UTF-8"}, styles.GlyphsUnicode},
	} {
		if got := styles.DetectGlyphs(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: glyphs %v, want %v", c.env, got, c.want)
		}
	}
}

// Under a non-UTF-8 locale every frame is ASCII: box drawing, arrows,
// ellipses, checks and bullets have their stand-ins, and the layout keeps
// its widths.
func TestGoldenASCII(t *testing.T) {
	for _, name := range []string{"modules", "result"} {
		t.Run(name, func(t *testing.T) {
			m := newModel(nil, "/home/u/.local/share/modbay/workspace", Options{NoColor: true, Glyphs: styles.GlyphsASCII,
				Banner: "No modules in /home/u/.local/share/modbay; showing the built-in examples."})
			m.com.Now = uitest.NewClock().Now
			m.viewerEnv = viewer.Env{}
			m.Update(tea.WindowSizeMsg{Width: 60, Height: 16})
			if name == "modules" {
				withModules(t, m)
			} else {
				resultFor(t, m, "invoke/success-with-artifact.json")
			}
			out := frame(t, m)
			for i, r := range ansi.Strip(out) {
				if r > 0x7f {
					t.Fatalf("non-ASCII %q at byte %d:\n%s", r, i, ansi.Strip(out))
				}
			}
			golden.RequireEqual(t, []byte(out))
		})
	}
	if got := styles.ToASCII("╭─┤ a … b ✓ ✗ • ↑↓←→ │╯"); got != "+-+ a ~ b + x * ^v<> |+" {
		t.Errorf("ToASCII: %q", got)
	}
}

// Counts read as words: "1 line", "1 token", "1 artifact was".
func TestPluralsInTheCockpit(t *testing.T) {
	m, _ := newTest(t, nil, 120, 80)
	resultFor(t, m, "invoke/success-with-artifact.json")
	r := m.result()
	r.res.Stderr = "one line\n"
	r.rebuild()
	if c := ansi.Strip(r.content()); !strings.Contains(c, "Stderr (1 line)") {
		t.Errorf("stderr heading for one line:\n%s", c)
	}
	r.res.Stderr = strings.Repeat("x\n", stderrCollapsed+1)
	r.rebuild()
	if c := ansi.Strip(r.content()); !strings.Contains(c, "… 1 earlier line (e expands)") {
		t.Errorf("one earlier line:\n%s", c)
	}
	if got := tokens(1); got != "(1 token)" {
		t.Errorf("tokens(1) = %q", got)
	}
	if got := tokens(2); got != "(2 tokens)" {
		t.Errorf("tokens(2) = %q", got)
	}
}

// asciiMarkdown has every markdown element glamour draws with a glyph of
// its own: inline code (no-break spaces around it in colour), a table,
// bullets, a task, a quote and a rule.
const asciiMarkdown = "# Report\n\nRun `modbay list` and **135** runs.\n\n| a | b |\n|---|---|\n| `x` | y |\n\n" +
	"- one\n- [x] done\n\n> quoted `code`\n\n---\n\nend\n"

// Under a non-UTF-8 locale the markdown viewer's frame is ASCII in
// colour too: glamour's no-break spaces around inline code are spaces.
func TestMarkdownViewerASCII(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		m := newModel(nil, "/home/u/.local/share/modbay/workspace", Options{NoColor: noColor, Glyphs: styles.GlyphsASCII})
		m.com.Now = uitest.NewClock().Now
		m.viewerEnv = viewer.Env{}
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		h := newHarness(t, m)
		resultFor(t, m, "invoke/success-with-artifact.json")
		staged := filepath.Join(t.TempDir(), "report.md")
		if err := os.WriteFile(staged, []byte(asciiMarkdown), 0o444); err != nil {
			t.Fatal(err)
		}
		a := &m.result().res.Artifacts[0]
		a.Staged, a.Digest, a.Size, a.MediaType, a.Presentation = staged, modproto.Digest([]byte(asciiMarkdown)), int64(len(asciiMarkdown)), "text/markdown", "markdown"
		h.key("enter")
		h.until("render", func() bool {
			return m.screen() == screenViewer && strings.Contains(ansi.Strip(m.View().Content), "quoted")
		})
		out := ansi.Strip(frame(t, m))
		if !strings.Contains(out, "modbay list") || !strings.Contains(out, "quoted") {
			t.Fatalf("no color %v: the document is not shown:\n%s", noColor, out)
		}
		for i, r := range out {
			if r > 0x7f {
				t.Fatalf("no color %v: non-ASCII %q at byte %d:\n%s", noColor, r, i, out)
			}
		}
	}
}
