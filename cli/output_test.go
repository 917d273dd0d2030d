package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/xo/terminfo"

	"modbay/modproto"
	"modbay/runner"
)

// TestJSONEscapesTerminalControls: --json output never carries a C1
// control, DEL, a bidi control or a zero-width character raw, and still
// decodes to the module's exact string.
func TestJSONEscapesTerminalControls(t *testing.T) {
	in := "a\u009b31mb\u202eevil\u2066x\u200bz\u200dw\ufeff\u007f\U000E0041\u00ad end — ünï"
	var buf bytes.Buffer
	if err := writeJSON(&buf, map[string]string{"s": in}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, raw := range []string{"\u009b", "\u202e", "\u2066", "\u200b", "\u200d", "\ufeff", "\x7f", "\U000E0041", "\u00ad"} {
		if strings.Contains(out, raw) {
			t.Errorf("--json carries %U raw: %q", []rune(raw)[0], out)
		}
	}
	for _, esc := range []string{`\u009b`, `\u202e`, `\u2066`, `\u200b`, `\u200d`, `\ufeff`, `\u007f`, `\udb40\udc41`, `\u00ad`} {
		if !strings.Contains(out, esc) {
			t.Errorf("--json lacks %s: %q", esc, out)
		}
	}
	if !strings.Contains(out, "end — ünï") {
		t.Errorf("printable text was escaped: %q", out)
	}
	var back map[string]string
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back["s"] != in {
		t.Errorf("round trip: %v %q", err, back["s"])
	}
	if got := string(escapeJSONText([]byte(`{"a": "plain"}`))); got != `{"a": "plain"}` {
		t.Errorf("clean JSON changed: %q", got)
	}
}

// TestIDsShowInvisibleCharacters: two module ids that differ only by a
// zero-width character never look the same, in list, describe and
// validate; --json escapes the character.
func TestIDsShowInvisibleCharacters(t *testing.T) {
	home := t.TempDir()
	for _, id := range []string{"twin", "tw\u200bin"} {
		dir := filepath.Join(home, "modules", id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		src := scriptModule(t, modproto.Descriptor{Module: "twin", Name: "Twin", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
			Capabilities: []modproto.Capability{{ID: "twin.run", Title: "Run", Summary: "s", Effects: localEffects}}}, "exit 1")
		b, _ := os.ReadFile(src)
		if err := os.WriteFile(filepath.Join(dir, id), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, out, _ := run(t, "--home", home, "list")
	if !strings.Contains(out, "tw<U+200B>in") || strings.Contains(out, "\u200b") {
		t.Errorf("list hides the zero-width space:\n%s", out)
	}
	_, out, _ = run(t, "--home", home, "list", "--json")
	if !strings.Contains(out, `"tw\u200bin"`) {
		t.Errorf("list --json: %s", out)
	}
	_, out, _ = run(t, "--home", home, "validate", "tw\u200bin")
	if !strings.HasPrefix(out, "tw<U+200B>in: ") {
		t.Errorf("validate: %s", out)
	}
	_, out, _ = run(t, "--home", home, "describe", "tw\u200bin")
	if !strings.Contains(out, "tw<U+200B>in") {
		t.Errorf("describe: %s", out)
	}
	if got := cleanID("a\u2060b\u3164c\ufe0fd"); got != "a<U+2060>b<U+3164>c<U+FE0F>d" {
		t.Errorf("cleanID = %q", got)
	}
	if got := cleanID("plain-id.v1"); got != "plain-id.v1" {
		t.Errorf("cleanID changed a plain id: %q", got)
	}
}

// TestResultWords pins the words of a result: plurals, out-of-range
// costs, truncated stderr, in text and in --json.
func TestResultWords(t *testing.T) {
	neg, huge := -1e9, 1e308
	res := &runner.Result{RequestID: "req_1", Module: "m", Capability: "m.run", ExitCode: 1,
		Envelope: &modproto.Envelope{OK: false, Error: &modproto.Error{Code: "provider_failure", Message: "no"},
			Execution: modproto.Execution{EstimatedCost: &huge, ActualCost: &neg}},
		Job:    &runner.JobStatus{ID: "j\u200b1", State: "failed", Polls: 1},
		Stderr: "first part\n", StderrTruncated: true}
	var buf bytes.Buffer
	writeResult(&buf, res, true, false)
	out := buf.String()
	for _, want := range []string{
		"cost: estimated implausible: $1.0e+308, actual invalid: negative (-$1.0e+09)",
		"job j<U+200B>1: failed after 1 poll\n",
		"stderr (truncated: only the first 11 B were kept):\n  first part",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("result lacks %q:\n%s", want, out)
		}
	}
	res.Job.Polls = 2
	buf.Reset()
	writeResult(&buf, res, true, false)
	if !strings.Contains(buf.String(), "after 2 polls") {
		t.Errorf("two polls:\n%s", buf.String())
	}
	buf.Reset()
	if err := writeJSON(&buf, resultJSON(res)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"stderr_truncated": true`) {
		t.Errorf("--json does not say stderr was truncated:\n%s", buf.String())
	}
	res.StderrTruncated = false
	buf.Reset()
	writeJSON(&buf, resultJSON(res))
	if !strings.Contains(buf.String(), `"stderr_truncated": false`) {
		t.Errorf("--json stderr_truncated must always be present:\n%s", buf.String())
	}
}

// TestPluralsInDescribeAndValidate: "1 token", "1 request schema error".
func TestPluralsInDescribeAndValidate(t *testing.T) {
	d := &modproto.Descriptor{Module: "m", Name: "M", Version: "1",
		Skills: []modproto.Skill{{ID: "s1", Title: "One", Tokens: 1}, {ID: "s2", Title: "Two", Tokens: 2}}}
	var buf bytes.Buffer
	writeModule(&buf, &runner.Module{ID: "m", Status: runner.StatusReady, Descriptor: d})
	if out := buf.String(); !strings.Contains(out, "(~1 token)") || !strings.Contains(out, "(~2 tokens)") {
		t.Errorf("describe:\n%s", out)
	}
	home, exe := t.TempDir(), brokenSchemaModule(t)
	_, out, _ := run(t, "--home", home, "validate", exe)
	if !strings.Contains(out, "refused — 1 request schema error:") {
		t.Errorf("validate:\n%s", out)
	}
}

// TestCockpitNeedsATerminal: without a terminal (ssh host modbay) or with
// TERM=dumb the cockpit is refused with a hint, exit 2, before anything
// starts.
func TestCockpitNeedsATerminal(t *testing.T) {
	ios, out, errb := fakeStreams(false, "TERM=xterm-256color")
	if code := execute(context.Background(), nil, ios, nil); code != ExitUsage || !strings.Contains(errb.String(), noTerminalHint) || out.Len() != 0 {
		t.Errorf("no terminal: exit %d, stderr %q, stdout %q", code, errb, out)
	}
	// stdout a terminal but no keyboard (stdin a pipe, no /dev/tty).
	ios, _, errb = fakeStreams(false, "TERM=xterm")
	ios.IsTerminal = func(s any) bool { return s == ios.Out }
	if code := execute(context.Background(), nil, ios, nil); code != ExitUsage || !strings.Contains(errb.String(), noTerminalHint) {
		t.Errorf("no keyboard: exit %d, stderr %q", code, errb)
	}
	ios, _, errb = fakeStreams(true, "TERM=dumb")
	if code := execute(context.Background(), []string{"--home", t.TempDir()}, ios, nil); code != ExitUsage || !strings.Contains(errb.String(), dumbTerminalHint) {
		t.Errorf("TERM=dumb: exit %d, stderr %q", code, errb)
	}
}

// TestRenderFollowsTheTerminalProfile: on a terminal, render sends no
// color the terminal cannot show: no 256-color or true-color codes to a
// vt100 or an 8-color xterm; 256 colors, but no true color, to
// xterm-256color.
func TestRenderFollowsTheTerminalProfile(t *testing.T) {
	md := filepath.Join(t.TempDir(), "x.md")
	os.WriteFile(md, []byte("# Title\n\nSome *text* and `code` and a [link](https://example.com).\n\n```go\nfunc main() {}\n```\n"), 0o644)
	renderOn := func(env ...string) string {
		t.Helper()
		ios, out, errb := fakeStreams(true, env...)
		if code := execute(context.Background(), []string{"render", md, "-w", "60"}, ios, nil); code != ExitOK {
			t.Fatalf("render %v: exit %d %s", env, code, errb)
		}
		return out.String()
	}
	extended := func(s string) bool {
		return strings.Contains(s, "38;5;") || strings.Contains(s, "48;5;") || strings.Contains(s, "38;2;") || strings.Contains(s, "48;2;")
	}
	// The markdown theme styles in 256 colors: a true-color terminal gets
	// them as they are, so the degraded cases below can be told apart.
	if full := renderOn("TERM=xterm-direct"); !extended(full) {
		t.Fatalf("a true-color terminal got no extended colors; the test cannot tell: %q", full)
	}
	for _, term := range []string{"vt100", "xterm"} {
		if out := renderOn("TERM=" + term); extended(out) || !strings.Contains(out, "Title") {
			t.Errorf("TERM=%s got 256-color or true-color codes: %q", term, out)
		}
	}
	if out := renderOn("TERM=xterm-256color"); strings.Contains(out, "38;2;") || !strings.Contains(out, "38;5;") {
		t.Errorf("TERM=xterm-256color: %q", out)
	}
	if out := renderOn("TERM=dumb"); strings.Contains(out, "\x1b") {
		t.Errorf("TERM=dumb got escapes: %q", out)
	}
}

// TestTerminalProfile pins the profile read from the environment.
func TestTerminalProfile(t *testing.T) {
	for _, tt := range []struct {
		env  []string
		want colorprofile.Profile
	}{
		{[]string{"TERM=xterm-256color"}, colorprofile.ANSI256},
		{[]string{"TERM=xterm-256color", "COLORTERM=truecolor"}, colorprofile.TrueColor},
		{[]string{"TERM=xterm"}, colorprofile.ANSI},
		{[]string{"TERM=dumb"}, colorprofile.NoTTY},
		{[]string{"TERM=xterm-256color", "NO_COLOR=1"}, colorprofile.ASCII},
	} {
		if got := terminalProfile(tt.env); got != tt.want {
			t.Errorf("terminalProfile(%q) = %v, want %v", tt.env, got, tt.want)
		}
	}
	// A vt100 has no colors at all: where its terminfo entry is installed,
	// it gets attributes only.
	if _, err := terminfo.Load("vt100"); err == nil {
		if got := terminalProfile([]string{"TERM=vt100"}); got != colorprofile.ASCII {
			t.Errorf("vt100 = %v, want ASCII", got)
		}
	} else if got := terminalProfile([]string{"TERM=vt100"}); got > colorprofile.ANSI {
		t.Errorf("vt100 without terminfo = %v", got)
	}
}

// TestCockpitColors: the cockpit reads the terminal as modbay render
// does, and draws without colour under NO_COLOR, --no-color and a vt100.
func TestCockpitColors(t *testing.T) {
	for _, tt := range []struct {
		env     []string
		flag    bool
		want    colorprofile.Profile
		noColor bool
	}{
		{[]string{"TERM=xterm-256color"}, false, colorprofile.ANSI256, false},
		{[]string{"TERM=xterm-256color", "COLORTERM=truecolor"}, false, colorprofile.TrueColor, false},
		{[]string{"TERM=xterm"}, false, colorprofile.ANSI, false},
		{[]string{"TERM=xterm-256color", "NO_COLOR=1"}, false, colorprofile.ASCII, true},
		{[]string{"TERM=xterm-256color"}, true, colorprofile.ASCII, true},
	} {
		io := &ioStreams{Environ: func() []string { return tt.env }, Getenv: func(k string) string {
			for _, kv := range tt.env {
				if n, v, _ := strings.Cut(kv, "="); n == k {
					return v
				}
			}
			return ""
		}}
		if p, nc := io.cockpitColors(tt.flag); p != tt.want || nc != tt.noColor {
			t.Errorf("%q --no-color=%v: %v no colour %v, want %v %v", tt.env, tt.flag, p, nc, tt.want, tt.noColor)
		}
	}
	if _, err := terminfo.Load("vt100"); err == nil {
		io := &ioStreams{Environ: func() []string { return []string{"TERM=vt100"} }, Getenv: func(string) string { return "" }}
		if p, nc := io.cockpitColors(false); p != colorprofile.ASCII || !nc {
			t.Errorf("vt100: %v no colour %v", p, nc)
		}
	}
}
