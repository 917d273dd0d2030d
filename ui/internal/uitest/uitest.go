package uitest

import (
	"embed"
	"io/fs"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"modbay/contain"
	"modbay/modproto"
	"modbay/runner"
)

// Fixtures holds the wire fixtures, by path under testdata/:
// describe/descriptor.json (module "fake": an echo, a report that writes an
// artifact outside the host, a long-running job with its poll capability, a
// skill, an agent overlay and an unavailable binary requirement),
// invoke/success-with-artifact.json (fake.report's answer with one JSON
// artifact, whose bytes are artifacts/quarterly.json) and
// invoke/error-provider-failure-unknown-cost.json (a retryable provider
// failure that reached the network with unknown costs); schemas/*.json are
// request schemas for forms (see Schema).
var Fixtures fs.FS = mustSub(testdata, "testdata")

//go:embed testdata
var testdata embed.FS

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err)
	}
	return sub
}

// Epoch is the fixed time fixtures and clocks start from.
var Epoch = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// Clock is a settable clock for common.Common.Now.
type Clock struct{ T time.Time }

// NewClock returns a clock at Epoch.
func NewClock() *Clock { return &Clock{T: Epoch} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return c.T }

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.T = c.T.Add(d) }

// Key returns the key press for a binding name: "tab", "shift+tab",
// "enter", "esc", "space", "up", "down", "left", "right", "pgup",
// "pgdown", "home", "end", "f1", "ctrl+<letter>", or a single printable
// character.
func Key(name string) tea.KeyPressMsg {
	switch name {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "f1":
		return tea.KeyPressMsg{Code: tea.KeyF1}
	}
	if len(name) == len("ctrl+s") && strings.HasPrefix(name, "ctrl+") {
		return tea.KeyPressMsg{Code: rune(name[5]), Mod: tea.ModCtrl}
	}
	r := []rune(name)
	return tea.KeyPressMsg{Code: r[0], Text: name}
}

// Type returns one key press per rune of s.
func Type(s string) []tea.Msg {
	var out []tea.Msg
	for _, r := range s {
		out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return out
}

// Read returns the bytes of fixture rel, a slash-separated path in Fixtures.
func Read(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := fs.ReadFile(Fixtures, rel)
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return b
}

// Schema returns request schema fixture schemas/<name>.json: "download"
// (uri format, bounded integers with defaults), "signup" (every scalar
// kind, formats, enum, oneOf of consts), "ticket-update" (a type-array
// union inside an array of objects), "log-lookup" (nullable anyOf with a
// null default, patterns), "recipe-update" (large: $defs and $refs, a
// oneOf of twelve block kinds, nested arrays; the benchmarks' schema) and
// "whole-request" (a schema of the whole request, docs/protocol.md §4).
func Schema(t testing.TB, name string) []byte {
	t.Helper()
	return Read(t, "schemas/"+name+".json")
}

// SchemaNames are the names Schema accepts, in a fixed order.
var SchemaNames = []string{"download", "signup", "ticket-update", "log-lookup", "recipe-update", "whole-request"}

// Envelope decodes an invoke fixture, e.g. "invoke/success-with-artifact.json".
func Envelope(t testing.TB, rel string) *modproto.Envelope {
	t.Helper()
	env, err := modproto.DecodeEnvelope(Read(t, rel))
	if err != nil {
		t.Fatalf("fixture %s: %v", rel, err)
	}
	env.Normalize()
	return env
}

// Module is the "fake" module with the fixture's full descriptor, as the
// runner would list it: its ffmpeg requirement is unavailable, so it needs
// setup.
func Module(t testing.TB) *runner.Module {
	t.Helper()
	env := Envelope(t, "describe/descriptor.json")
	d, err := modproto.DecodeDescriptor(env.Result)
	if err != nil {
		t.Fatal(err)
	}
	return &runner.Module{
		ID: "fake", Exe: "/home/u/.local/share/modbay/modules/fake/fake",
		Dir: "/home/u/.local/share/modbay/modules/fake", Origin: "home",
		Descriptor: d, Status: runner.StatusNeedsSetup,
		Reason:      "binary ffmpeg: no ffmpeg on PATH; fake.report needs it to encode previews",
		Warnings:    []string{"requirement version python was not probed"},
		DescribedAt: Epoch,
	}
}

// Modules is a list for the module screen: the fake module, a ready one, a
// disabled one and a broken one whose reason carries a terminal escape.
func Modules(t testing.TB) []*runner.Module {
	t.Helper()
	fake := Module(t)
	ready := Module(t)
	ready.ID, ready.Status, ready.Reason = "echo", runner.StatusReady, ""
	ready.Descriptor.Module, ready.Descriptor.Name = "echo", "Echo Tools"
	ready.Descriptor.Requirements = nil
	ready.Exe = "/home/u/.local/share/modbay/modules/echo/echo"
	off := &runner.Module{ID: "archive", Exe: "/home/u/.local/share/modbay/modules/archive/archive", Status: runner.StatusDisabled, Reason: ".disabled is present"}
	broken := &runner.Module{
		ID: "zz-broken", Exe: "/home/u/.local/share/modbay/modules/zz-broken/zz-broken", Status: runner.StatusBroken,
		Reason: "describe: host.invalid_json: stdout is not valid JSON \x1b[31mred\x1b[0m",
		Stderr: "panic: boom\n\x1b]52;c;aGk=\x07",
	}
	return []*runner.Module{off, ready, fake, broken}
}

// Plan is a plan for fake.report that needs approval: it writes outside
// the host, and its seed_in root could not be supplied.
func Plan(t testing.TB, m *runner.Module) *runner.Plan {
	t.Helper()
	c := *m.Descriptor.Capability("fake.report")
	return &runner.Plan{
		Module: m, Capability: c,
		Request: modproto.Request{
			Protocol: modproto.ProtocolID, Capability: c.ID,
			RequestID: "req_0000000000000000000000000000fake",
			Input:     []byte(`{"title":"Quarterly"}`),
			Roots: map[string]modproto.Root{
				"workspace": {Path: "/home/u/.local/share/modbay/workspace", Mode: modproto.RootReadWrite},
			},
			Grants:     modproto.Grants{Subprocess: []string{"ffmpeg"}},
			Binaries:   map[string]string{"ffmpeg": "/usr/bin/ffmpeg"},
			DeadlineMS: 30000, MaxOutputBytes: modproto.DefaultMaxOutputBytes,
		},
		Approval: []string{"capability declares external_writes"},
		Missing:  []string{"read root seed_in: not mapped in the config"},
	}
}

// Contained is the enforcement of a fully contained run as this project's
// machine kind applies it (root, Landlock ABI 7, every namespace, seccomp).
var Contained = contain.Enforcement{
	Contained: true, Processes: contain.ProcessesPIDNamespace, Filesystem: "landlock ABI 7",
	Network: contain.NetworkNamespace + " + " + contain.NetworkNoSockets, Capabilities: contain.CapabilitiesDropped,
	Terminal: contain.TerminalOwnSession, Signals: "landlock scope + pid namespace", UnixSockets: contain.UnixSocketsRefused,
	Descriptors: contain.DescriptorsClosed, Metadata: contain.MetadataSetuidRefused, Limits: "open files 1024",
}

// Gapped is the enforcement of a run on an older machine without user
// namespaces, not root (Landlock ABI 5, seccomp): no PID namespace and no
// signal scoping, so two gaps.
var Gapped = contain.Enforcement{
	Contained: true, Processes: contain.ProcessesGroup, Filesystem: "landlock ABI 5",
	Network: contain.NetworkNoSockets, Capabilities: contain.CapabilitiesDropped,
	Terminal: contain.TerminalOwnSession, Signals: "not enforced (no landlock scope (ABI < 6) and no pid namespace)",
	UnixSockets: contain.UnixSocketsRefused, Descriptors: contain.DescriptorsClosed, Metadata: contain.MetadataSetuidRefused, Limits: "open files 1024",
	Gaps: []string{"processes: process group (no pid namespace)",
		"signals: not enforced (no landlock scope (ABI < 6) and no pid namespace)"},
}

// Result is the run of Plan answered by invoke fixture rel, with its
// artifacts verified and staged: Contained when the envelope is ok,
// Gapped when it is an error (so goldens show both).
func Result(t testing.TB, p *runner.Plan, rel string) *runner.Result {
	t.Helper()
	env := Envelope(t, rel)
	res := &runner.Result{
		RequestID: env.RequestID, Module: p.Module.ID, Capability: p.Capability.ID,
		Envelope: env, Started: Epoch, Duration: 420 * time.Millisecond,
		Stderr:      "reading 3 quarters\nwriting reports/quarterly.json\n",
		Enforcement: Contained,
	}
	for _, a := range env.Execution.Artifacts {
		res.Artifacts = append(res.Artifacts, runner.VerifiedArtifact{
			Artifact: a,
			Source:   "/home/u/.local/share/modbay/workspace/" + a.Path,
			Staged:   "/home/u/.local/share/modbay/artifacts/" + a.Digest[len("sha256:"):],
			Size:     a.Bytes, Presentation: "json",
		})
	}
	if !env.OK {
		res.ExitCode = 1
		res.Enforcement = Gapped
	}
	_, res.EffectWarnings = modproto.CheckExecutionAgainstDeclared(p.Module.Descriptor, p.Capability.ID, &env.Execution)
	return res
}
