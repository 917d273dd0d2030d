package dialog

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/exp/golden"

	"modbay/examples"
	"modbay/modproto"
	"modbay/runner"
	"modbay/ui/common"
	"modbay/ui/internal/uitest"
)

func newTestApproval(t *testing.T) (*Approval, *uitest.Clock) {
	t.Helper()
	clock := uitest.NewClock()
	com := common.New(true)
	com.Now = clock.Now
	return NewApproval(com, uitest.Plan(t, uitest.Module(t))), clock
}

func TestApprovalIgnoresKeysDuringGrace(t *testing.T) {
	for _, k := range []string{"a", "s", "d", "esc", "enter"} {
		a, clock := newTestApproval(t)
		clock.Advance(GracePeriod - time.Millisecond)
		if act, _ := a.Update(uitest.Key(k)); act != nil {
			t.Errorf("%q at %v after opening: got %#v, want nothing", k, GracePeriod-time.Millisecond, act)
		}
	}
}

// TestApprovalSaysAKeyPressedTooSoon: an answer key in the grace period
// is not taken, and the dialog says so, after the grace too, until the
// key is pressed again.
func TestApprovalSaysAKeyPressedTooSoon(t *testing.T) {
	for _, k := range []string{"a", "s", "d", "esc"} {
		a, clock := newTestApproval(t)
		if act, _ := a.Update(uitest.Key(k)); act != nil {
			t.Fatalf("%q in the grace: %#v", k, act)
		}
		want := k + " ignored: pressed too soon"
		if v := a.View(100, 40); !strings.Contains(v, want) {
			t.Errorf("%q: the dialog does not say %q:\n%s", k, want, v)
		}
		clock.Advance(GracePeriod)
		if v := a.View(100, 40); !strings.Contains(v, want) {
			t.Errorf("%q: the note went with the grace:\n%s", k, v)
		}
		if v := a.View(40, 40); !strings.Contains(v, k+" ignored") {
			t.Errorf("%q: narrow dialog does not say it:\n%s", k, v)
		}
	}
	a, _ := newTestApproval(t)
	a.Update(uitest.Key("down"))
	a.Update(uitest.Key("y"))
	if v := a.View(100, 40); strings.Contains(v, "ignored") {
		t.Errorf("a scroll or an unbound key is said to be ignored:\n%s", v)
	}
}

func TestApprovalActionsAfterGrace(t *testing.T) {
	tests := []struct {
		key  string
		want Action
	}{
		{"a", ActionApprove{Scope: ScopeOnce}},
		{"s", ActionApprove{Scope: ScopeSession}},
		{"d", ActionDeny{}},
		{"esc", ActionDeny{}},
		{"enter", nil},
		{"y", nil},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			a, clock := newTestApproval(t)
			clock.Advance(GracePeriod)
			act, _ := a.Update(uitest.Key(tt.key))
			if act != tt.want {
				t.Fatalf("%q: got %#v, want %#v", tt.key, act, tt.want)
			}
		})
	}
}

func TestApprovalShowsWhatWillBeGranted(t *testing.T) {
	a, clock := newTestApproval(t)
	clock.Advance(GracePeriod)
	view := a.View(100, 40)
	for _, want := range []string{
		"Fake Module (fake)", "Report (fake.report)", "capability declares external_writes",
		"local · writes · provider:local · cost known", "workspace rw /home/u/.local/share/modbay/workspace",
		"ffmpeg → /usr/bin/ffmpeg", "read root seed_in: not mapped in the config", "allow once", "deny",
	} {
		if !strings.Contains(view, want) {
			t.Errorf("approval view lacks %q:\n%s", want, view)
		}
	}
}

func TestApprovalUnknownCostIsNeverFree(t *testing.T) {
	a, _ := newTestApproval(t)
	a.plan.Capability.Effects.CostKnown = false
	view := a.View(100, 40)
	if !strings.Contains(view, "unknown") || strings.Contains(view, "free") || strings.Contains(view, "$0") {
		t.Fatalf("unknown cost shown wrongly:\n%s", view)
	}
}

func TestApprovalScrollsWhenItDoesNotFit(t *testing.T) {
	a, clock := newTestApproval(t)
	const w, h = 60, 13 // a 60×15 terminal less the header and help lines
	view := a.View(w, h)
	if n := len(strings.Split(view, "\n")); n > h {
		t.Fatalf("dialog is %d lines, more than %d:\n%s", n, h, view)
	}
	if !strings.Contains(view, "↓") || !strings.Contains(view, "more") {
		t.Fatalf("no sign that more is below:\n%s", view)
	}
	if !strings.Contains(view, "allow once") || !strings.Contains(view, "(wait…)") {
		t.Fatalf("the choice line is not shown whole:\n%s", view)
	}
	if !a.Scrollable() {
		t.Fatal("Scrollable is false for a body that does not fit")
	}
	// Scrolling works during the grace period and answers nothing; every
	// line of the body can be reached.
	seen := view
	for range 20 {
		if act, _ := a.Update(uitest.Key("j")); act != nil {
			t.Fatalf("j answered %#v", act)
		}
		v := a.View(w, h)
		if !strings.Contains(v, "allow once") {
			t.Fatalf("the choice line scrolled away:\n%s", v)
		}
		seen += v
	}
	for _, want := range []string{"Est. cost", "Roots", "workspace rw", "Subprocess", "Not supplied", "↑"} {
		if !strings.Contains(seen, want) {
			t.Errorf("scrolling never showed %q", want)
		}
	}
	a.Update(uitest.Key("pgup"))
	a.Update(uitest.Key("pgup"))
	a.Update(uitest.Key("up"))
	a.Update(uitest.Key("k"))
	if v := a.View(w, h); !strings.Contains(v, "Fake Module (fake)") {
		t.Fatalf("scrolling back up did not reach the top:\n%s", v)
	}
	a.Update(uitest.Key("pgdown"))
	clock.Advance(GracePeriod)
	if act, _ := a.Update(uitest.Key("down")); act != nil {
		t.Fatalf("down after the grace period answered %#v", act)
	}
	if act, _ := a.Update(uitest.Key("a")); act != (ActionApprove{Scope: ScopeOnce}) {
		t.Fatalf("a after scrolling: %#v", act)
	}
}

// fetchPlan is a plan of the fetch example's fetch.url (its real
// descriptor, from the example itself) with input.
func fetchPlan(t *testing.T, input string) *runner.Plan {
	t.Helper()
	var out bytes.Buffer
	examples.Main([]string{"fetch", "module", "describe", "--json"}, &out, io.Discard)
	env, err := modproto.DecodeEnvelope(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	d, err := modproto.DecodeDescriptor(env.Result)
	if err != nil {
		t.Fatal(err)
	}
	c := *d.Capability("fetch.url")
	return &runner.Plan{
		Module:     &runner.Module{ID: "fetch", Descriptor: d, Status: runner.StatusReady},
		Capability: c,
		Request: modproto.Request{
			Protocol: modproto.ProtocolID, Capability: c.ID, RequestID: "req_fetch",
			Input:  json.RawMessage(input),
			Roots:  map[string]modproto.Root{"workspace": {Path: "/home/u/.local/share/modbay/workspace", Mode: modproto.RootReadWrite}},
			Grants: modproto.Grants{Network: []string{"example.com"}},
		},
		Approval: []string{"capability reaches the network"},
	}
}

// TestGoldenApprovalFetch: the dialog shows the URL it would fetch.
func TestGoldenApprovalFetch(t *testing.T) {
	clock := uitest.NewClock()
	com := common.New(true)
	com.Now = clock.Now
	a := NewApproval(com, fetchPlan(t, `{"url":"https://example.com/reports/q3.md?lang=en","max_bytes":1048576}`))
	clock.Advance(GracePeriod)
	view := a.View(80, 24)
	if !strings.Contains(view, `url: "https://example.com/reports/q3.md?lang=en"`) {
		t.Fatalf("the dialog does not show the URL it approves:\n%s", view)
	}
	golden.RequireEqual(t, []byte(view))
}

// TestApprovalInputExpandsAndMasks: an input cut to a few lines shows
// whole by itself when the dialog then fits; when it does not, the dialog
// says how long the whole input is and i shows it (the body scrolls); i
// works in the grace period and answers nothing; a writeOnly or format:
// password value never shows.
func TestApprovalInputExpandsAndMasks(t *testing.T) {
	clock := uitest.NewClock()
	com := common.New(true)
	com.Now = clock.Now
	p := fetchPlan(t, `{"a":1,"b":2,"c":3,"d":"fourth","token":"hunter2","nested":{"pw":"s3cret"}}`)
	p.Module.Descriptor.RequestSchemas[p.Capability.RequestSchema] = json.RawMessage(`{"type":"object",
		"properties":{"token":{"type":"string","writeOnly":true},"nested":{"$ref":"#/$defs/n"}},
		"$defs":{"n":{"properties":{"pw":{"format":"password"}}}}}`)
	whole := []string{`"d": "fourth"`, `"token": "••••••"`, `"pw": "••••••"`, "2 secret values masked"}
	if v := NewApproval(com, p).View(80, 40); !containsAll(v, whole...) || strings.Contains(v, "i shows") {
		t.Fatalf("an input that fits is not shown whole:\n%s", v)
	}
	a := NewApproval(com, p)
	v := a.View(80, 16)
	if strings.Contains(v, "fourth") || !containsAll(v, "… 3 more fields", "i shows the whole input (10 lines)") {
		t.Fatalf("collapsed input:\n%s", v)
	}
	if !slices.ContainsFunc(a.ShortHelp(), func(b key.Binding) bool { return b.Help().Key == "i" }) {
		t.Fatal("the help bar does not offer i while the input is cut")
	}
	if act, _ := a.Update(uitest.Key("i")); act != nil {
		t.Fatalf("i answered %#v", act)
	}
	var seen strings.Builder
	for range 20 {
		v = a.View(80, 16)
		seen.WriteString(v)
		a.Update(uitest.Key("down"))
	}
	if !containsAll(seen.String(), whole...) || !strings.Contains(v, "more above") {
		t.Errorf("expanded input, scrolled through:\n%s", seen.String())
	}
	if strings.Contains(seen.String(), "hunter2") || strings.Contains(seen.String(), "s3cret") {
		t.Fatalf("a secret is shown:\n%s", seen.String())
	}
	a.Update(uitest.Key("i"))
	if v := a.View(80, 40); strings.Contains(v, "fourth") {
		t.Fatalf("i did not fold the input again:\n%s", v)
	}
}

// containsAll reports whether s holds every one of want.
func containsAll(s string, want ...string) bool {
	for _, w := range want {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// TestApprovalRootsSayWhatIsSupplied: the workspace root is marked as
// always supplied, as describe and the permissions pane say; an MCP
// server's call lists the server's own roots, not request roots it never
// receives.
func TestApprovalRootsSayWhatIsSupplied(t *testing.T) {
	a, _ := newTestApproval(t)
	view := strings.Join(strings.Fields(strings.ReplaceAll(a.View(120, 40), "│", "")), " ")
	if !strings.Contains(view, "workspace rw /home/u/.local/share/modbay/workspace (always supplied)") {
		t.Errorf("workspace not marked:\n%s", a.View(120, 40))
	}
	mod := *a.plan.Module
	mod.EffectsAreHints = true
	a.plan.Module = &mod
	a.plan.ServerRoots = map[string]modproto.Root{"server": {Path: "/opt/mcp/fs", Mode: "ro"}}
	view = strings.Join(strings.Fields(strings.ReplaceAll(a.View(120, 40), "│", "")), " ")
	if strings.Contains(view, "workspace rw") || !strings.Contains(view, "ro /opt/mcp/fs (the server's, from its config entry, fixed when it started)") {
		t.Errorf("an MCP call's roots:\n%s", a.View(120, 40))
	}
}

// TestApprovalSaysWhyItAsksAgain: a call approved before under this id
// says first, in one line, why it is asked again.
func TestApprovalSaysWhyItAsksAgain(t *testing.T) {
	clock := uitest.NewClock()
	com := common.New(true)
	com.Now = clock.Now
	p := uitest.Plan(t, uitest.Module(t))
	p.AskedAgain = "asked again: pre_approved names the installed fake; this one is loaded by path /tmp/fake/fake\x1b[2J"
	view := NewApproval(com, p).View(200, 40)
	why := strings.Index(view, "asked again: pre_approved names the installed fake")
	if why < 0 || why > strings.Index(view, "capability declares external_writes") {
		t.Errorf("the approval does not lead with why it asks again:\n%s", view)
	}
	if strings.Contains(view, "\x1b[2J") {
		t.Error("the line reached the terminal unsanitized")
	}
}

// TestApprovalDestructiveSessionAsksTwice: a tool its server calls
// destructive (destructiveHint: true) is allowed for the session only by
// a second s, after the dialog says what that allows; the server's
// no-network note and its own roots are shown.
func TestApprovalDestructiveSessionAsksTwice(t *testing.T) {
	a, clock := newTestApproval(t)
	a.plan.Destructive = true
	a.plan.NoNetwork = "runs without the network; add network: true to grant it"
	a.plan.ServerRoots = map[string]modproto.Root{"server": {Path: "/srv/data", Mode: "rw"}}
	clock.Advance(GracePeriod)
	if act, _ := a.Update(uitest.Key("s")); act != nil {
		t.Fatalf("the first s on a destructive tool: %#v, want a second confirmation", act)
	}
	v := a.View(100, 40)
	for _, want := range []string{"press s again", "add network: true", "rw /srv/data"} {
		if !strings.Contains(v, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, v)
		}
	}
	if act, _ := a.Update(uitest.Key("s")); act != (ActionApprove{Scope: ScopeSession}) {
		t.Errorf("the second s: %#v", act)
	}
}
