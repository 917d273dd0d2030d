package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"modbay/modproto"
	"modbay/runner"
)

// fakeStreams are streams with stdout and stderr in buffers, stdin empty,
// the given environment and, when tty is true, stdin and stdout standing
// in for a terminal.
func fakeStreams(tty bool, env ...string) (*ioStreams, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	in := strings.NewReader("")
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return &ioStreams{
		In: in, Out: &out, ErrOut: &errb,
		IsTerminal: func(s any) bool { return tty && (s == any(&out) || s == any(in)) },
		CanOpenTTY: func() bool { return tty },
		Getenv:     func(k string) string { return vars[k] },
		Environ:    func() []string { return env },
	}, &out, &errb
}

// errNotRun marks a hook that captured its options instead of running.
var errNotRun = errors.New("captured, not run")

// TestParsedOptions checks what each command's flags and arguments parse
// into, with every run function replaced: nothing runs, no home is read.
func TestParsedOptions(t *testing.T) {
	var got any
	capture := func(o any) error { got = o; return errNotRun }
	hooks := &runHooks{
		cockpit:       func(_ context.Context, o *CockpitOptions) error { return capture(o) },
		list:          func(_ context.Context, o *ListOptions) error { return capture(o) },
		describe:      func(_ context.Context, o *DescribeOptions) error { return capture(o) },
		validate:      func(_ context.Context, o *ValidateOptions) error { return capture(o) },
		invoke:        func(_ context.Context, o *InvokeOptions) error { return capture(o) },
		render:        func(_ context.Context, o *RenderOptions) error { return capture(o) },
		dev:           func(_ context.Context, o *DevOptions) error { return capture(o) },
		doctor:        func(_ context.Context, o *DoctorOptions) error { return capture(o) },
		new:           func(_ context.Context, o *NewOptions) error { return capture(o) },
		check:         func(_ context.Context, o *CheckOptions) error { return capture(o) },
		rerun:         func(_ context.Context, o *RerunOptions) error { return capture(o) },
		mcpImport:     func(_ context.Context, o *MCPImportOptions) error { return capture(o) },
		mcpSurface:    func(_ context.Context, o *MCPSurfaceOptions) error { return capture(o) },
		mcpLogin:      func(_ context.Context, o *MCPLoginOptions) error { return capture(o) },
		history:       func(_ context.Context, o *HistoryOptions) error { return capture(o) },
		historyRun:    func(_ context.Context, o *HistoryRunOptions) error { return capture(o) },
		jobs:          func(_ context.Context, o *JobsOptions) error { return capture(o) },
		skills:        func(_ context.Context, o *SkillsOptions) error { return capture(o) },
		exampleModule: func(_ context.Context, o *ExampleModuleOptions) error { return capture(o) },
	}
	for _, tt := range []struct {
		args  []string
		check func(t *testing.T, o any)
	}{
		{[]string{"--home", "/h", "--no-color"}, func(t *testing.T, o any) {
			c := o.(*CockpitOptions)
			if c.G.home != "/h" || !c.G.noColor {
				t.Errorf("globals = %+v", *c.G)
			}
		}},
		{[]string{"list", "--json", "--module", "a", "--module", "b", "--examples"}, func(t *testing.T, o any) {
			l := o.(*ListOptions)
			if !l.JSON || !reflect.DeepEqual(l.G.modules, []string{"a", "b"}) || !l.G.examples {
				t.Errorf("list = %+v, globals %+v", *l, *l.G)
			}
		}},
		{[]string{"describe", "notes"}, func(t *testing.T, o any) {
			if d := o.(*DescribeOptions); d.Ref != "notes" || d.JSON {
				t.Errorf("describe = %+v", *d)
			}
		}},
		{[]string{"validate", "./mod", "--json", "--workspace", "/w"}, func(t *testing.T, o any) {
			if v := o.(*ValidateOptions); v.Ref != "./mod" || !v.JSON || v.G.workspace != "/w" {
				t.Errorf("validate = %+v", *v)
			}
		}},
		{[]string{"invoke", "fetch", "fetch.url", "-i", `{"url":"x"}`, "-y", "--json", "-v", "--deadline", "1m30s",
			"--artifact", "inbox=r1:report", "--artifact", "inbox=r2:table"}, func(t *testing.T, o any) {
			want := InvokeOptions{ModuleRef: "fetch", CapabilityID: "fetch.url", Input: `{"url":"x"}`, Yes: true, JSON: true,
				Verbose: true, Deadline: 90 * time.Second, DeadlineSet: true, Artifacts: []string{"inbox=r1:report", "inbox=r2:table"}}
			i := *o.(*InvokeOptions)
			i.IO, i.G = nil, nil
			if !reflect.DeepEqual(i, want) {
				t.Errorf("invoke = %+v, want %+v", i, want)
			}
		}},
		{[]string{"invoke", "notes", "notes.echo"}, func(t *testing.T, o any) {
			i := o.(*InvokeOptions)
			if i.DeadlineSet || i.Deadline != 0 || i.Input != "" || i.Yes {
				t.Errorf("invoke defaults = %+v", *i)
			}
		}},
		{[]string{"invoke", "notes", "notes.echo", "--deadline", "0"}, func(t *testing.T, o any) {
			if i := o.(*InvokeOptions); !i.DeadlineSet || i.Deadline != 0 {
				t.Errorf("--deadline 0 must be seen as given: %+v", *i)
			}
		}},
		{[]string{"render", "x.md", "-p", "table", "--media-type", "text/csv", "-w", "60", "--dark=false", "--color"}, func(t *testing.T, o any) {
			r := *o.(*RenderOptions)
			r.IO, r.G = nil, nil
			want := RenderOptions{Path: "x.md", Presentation: "table", MediaType: "text/csv", Width: 60, Dark: false, ForceColor: true}
			if r != want {
				t.Errorf("render = %+v, want %+v", r, want)
			}
		}},
		{[]string{"render", "x.md"}, func(t *testing.T, o any) {
			if r := o.(*RenderOptions); r.Width != 80 || !r.Dark || r.ForceColor {
				t.Errorf("render defaults = %+v", *r)
			}
		}},
		{[]string{"dev", "./mod/mod"}, func(t *testing.T, o any) {
			if _, ok := o.(*DevOptions); !ok {
				t.Errorf("dev = %T", o)
			}
		}},
		{[]string{"doctor", "--json"}, func(t *testing.T, o any) {
			if d := o.(*DoctorOptions); !d.JSON {
				t.Errorf("doctor = %+v", *d)
			}
		}},
		{[]string{"new", "mymod", "--lang", "sh", "--dir", "/tmp/x"}, func(t *testing.T, o any) {
			if n := o.(*NewOptions); n.ID != "mymod" || n.Lang != LangSh || n.Dir != "/tmp/x" {
				t.Errorf("new = %+v", *n)
			}
		}},
		{[]string{"new", "mymod"}, func(t *testing.T, o any) {
			if n := o.(*NewOptions); n.Lang != LangPython || n.Dir != "" {
				t.Errorf("new defaults = %+v", *n)
			}
		}},
		{[]string{"check", "notes", "-y", "--json"}, func(t *testing.T, o any) {
			if c := o.(*CheckOptions); c.Ref != "notes" || !c.Yes || !c.JSON {
				t.Errorf("check = %+v", *c)
			}
		}},
		{[]string{"rerun", "req_1", "-i", "{}", "--yes", "--detach"}, func(t *testing.T, o any) {
			r := o.(*RerunOptions)
			if r.RunID != "req_1" || r.Invoke.Input != "{}" || !r.Invoke.Yes || !r.Invoke.Detach || r.Invoke.JSON {
				t.Errorf("rerun = %+v, invoke %+v", *r, *r.Invoke)
			}
		}},
		{[]string{"mcp", "resources", "srv", "--json"}, func(t *testing.T, o any) {
			if m := o.(*MCPSurfaceOptions); m.Command != "resources" || m.Server != "srv" || !m.JSON {
				t.Errorf("mcp resources = %+v", *m)
			}
		}},
		{[]string{"mcp", "read", "srv", "file:///a b", "-y"}, func(t *testing.T, o any) {
			if m := o.(*MCPSurfaceOptions); m.Command != "read" || m.Server != "srv" || m.URI != "file:///a b" || !m.Yes || m.JSON {
				t.Errorf("mcp read = %+v", *m)
			}
		}},
		{[]string{"mcp", "prompts", "srv"}, func(t *testing.T, o any) {
			if m := o.(*MCPSurfaceOptions); m.Command != "prompts" || m.Server != "srv" || m.JSON {
				t.Errorf("mcp prompts = %+v", *m)
			}
		}},
		{[]string{"mcp", "prompt", "srv", "greet", "--arg", "name=Ada", "--arg", "style=a=b", "--json"}, func(t *testing.T, o any) {
			m := o.(*MCPSurfaceOptions)
			if m.Command != "prompt" || m.Server != "srv" || m.Prompt != "greet" || !reflect.DeepEqual(m.Args, []string{"name=Ada", "style=a=b"}) || !m.JSON {
				t.Errorf("mcp prompt = %+v", *m)
			}
		}},
		{[]string{"mcp", "import", "a.json", "b.json", "--dry-run", "--force"}, func(t *testing.T, o any) {
			m := o.(*MCPImportOptions)
			if !reflect.DeepEqual(m.Files, []string{"a.json", "b.json"}) || !m.DryRun || !m.Force || m.SkipExisting {
				t.Errorf("mcp import = %+v", *m)
			}
		}},
		{[]string{"mcp", "login", "github", "--no-browser"}, func(t *testing.T, o any) {
			m := o.(*MCPLoginOptions)
			if m.Server != "github" || !m.NoBrowser || m.Logout {
				t.Errorf("mcp login = %+v", *m)
			}
		}},
		{[]string{"mcp", "logout", "github"}, func(t *testing.T, o any) {
			m := o.(*MCPLoginOptions)
			if m.Server != "github" || !m.Logout {
				t.Errorf("mcp logout = %+v", *m)
			}
		}},
		{[]string{"history", "--module", "notes", "--capability", "notes.echo", "--status", "ok", "--limit", "5", "--json"}, func(t *testing.T, o any) {
			h := o.(*HistoryOptions)
			if h.Module != "notes" || h.Capability != "notes.echo" || h.Status != "ok" || h.Limit != 5 || !h.JSON {
				t.Errorf("history = %+v", *h)
			}
		}},
		{[]string{"history", "show", "req_1", "--json"}, func(t *testing.T, o any) {
			if h := o.(*HistoryRunOptions); h.Command != "show" || h.RunID != "req_1" || !h.JSON {
				t.Errorf("history show = %+v", *h)
			}
		}},
		{[]string{"history", "export", "req_1", "out"}, func(t *testing.T, o any) {
			if h := o.(*HistoryRunOptions); h.Command != "export" || h.RunID != "req_1" || h.Dir != "out" {
				t.Errorf("history export = %+v", *h)
			}
		}},
		{[]string{"history", "export", "req_1", "--dir", "out2"}, func(t *testing.T, o any) {
			if h := o.(*HistoryRunOptions); h.Dir != "out2" {
				t.Errorf("history export --dir = %+v", *h)
			}
		}},
		{[]string{"history", "pin", "req_1", "--off"}, func(t *testing.T, o any) {
			if h := o.(*HistoryRunOptions); h.Command != "pin" || h.RunID != "req_1" || !h.Off {
				t.Errorf("history pin = %+v", *h)
			}
		}},
		{[]string{"history", "rm", "req_1", "--pinned"}, func(t *testing.T, o any) {
			if h := o.(*HistoryRunOptions); h.Command != "rm" || h.RunID != "req_1" || !h.Pinned {
				t.Errorf("history rm = %+v", *h)
			}
		}},
		{[]string{"jobs", "--json"}, func(t *testing.T, o any) {
			if j := o.(*JobsOptions); j.Command != "list" || !j.JSON {
				t.Errorf("jobs = %+v", *j)
			}
		}},
		{[]string{"jobs", "wait", "req_1", "-v"}, func(t *testing.T, o any) {
			if j := o.(*JobsOptions); j.Command != "wait" || j.RunID != "req_1" || !j.Verbose {
				t.Errorf("jobs wait = %+v", *j)
			}
		}},
		{[]string{"jobs", "cancel", "req_1", "-y"}, func(t *testing.T, o any) {
			if j := o.(*JobsOptions); j.Command != "cancel" || j.RunID != "req_1" || !j.Yes {
				t.Errorf("jobs cancel = %+v", *j)
			}
		}},
		{[]string{"skills", "--json"}, func(t *testing.T, o any) {
			if k := o.(*SkillsOptions); k.Command != "list" || !k.JSON || k.Dirs != nil {
				t.Errorf("skills = %+v", *k)
			}
		}},
		{[]string{"skills", "list", "d1", "d2"}, func(t *testing.T, o any) {
			if k := o.(*SkillsOptions); k.Command != "list" || !reflect.DeepEqual(k.Dirs, []string{"d1", "d2"}) {
				t.Errorf("skills list = %+v", *k)
			}
		}},
		{[]string{"skills", "show", "s1", "--arg", "a=1", "--arg", "b=2"}, func(t *testing.T, o any) {
			if k := o.(*SkillsOptions); k.Command != "show" || k.Name != "s1" || !reflect.DeepEqual(k.Args, []string{"a=1", "b=2"}) {
				t.Errorf("skills show = %+v", *k)
			}
		}},
		{[]string{"skills", "check", "dir", "--json"}, func(t *testing.T, o any) {
			if k := o.(*SkillsOptions); k.Command != "check" || !reflect.DeepEqual(k.Dirs, []string{"dir"}) || !k.JSON {
				t.Errorf("skills check = %+v", *k)
			}
		}},
		{[]string{"skills", "run", "s1", "go.sh", "--", "x", "-y"}, func(t *testing.T, o any) {
			k := o.(*SkillsOptions)
			if k.Command != "run" || k.Name != "s1" || k.Script != "go.sh" || !reflect.DeepEqual(k.ScriptArgs, []string{"x", "-y"}) {
				t.Errorf("skills run = %+v", *k)
			}
		}},
		{[]string{"skills", "prompt", "--load", "s1", "--arg", "a=1", "-o", "out.md"}, func(t *testing.T, o any) {
			k := o.(*SkillsOptions)
			if k.Command != "prompt" || !reflect.DeepEqual(k.Load, []string{"s1"}) || !reflect.DeepEqual(k.Args, []string{"a=1"}) || k.Output != "out.md" {
				t.Errorf("skills prompt = %+v", *k)
			}
		}},
		{[]string{"example-module", "notes", "module", "invoke", "notes.report", "--input", "/r/request.json", "--home", "x"}, func(t *testing.T, o any) {
			// Flags are the module's argv, never modbay's: --home is passed on.
			want := []string{"notes", "module", "invoke", "notes.report", "--input", "/r/request.json", "--home", "x"}
			if e := o.(*ExampleModuleOptions); !reflect.DeepEqual(e.Args, want) {
				t.Errorf("example-module = %+v", *e)
			}
		}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got = nil
			ios, _, errb := fakeStreams(false)
			code := execute(context.Background(), tt.args, ios, hooks)
			if got == nil {
				t.Fatalf("no run function was reached (exit %d: %s)", code, errb)
			}
			if code != ExitUsage || !strings.Contains(errb.String(), errNotRun.Error()) {
				t.Errorf("exit %d, stderr %q", code, errb)
			}
			tt.check(t, got)
		})
	}
}

// TestParseErrorsRunNothing: bad arguments stop before any run function.
func TestParseErrorsRunNothing(t *testing.T) {
	ran := false
	hooks := &runHooks{invoke: func(context.Context, *InvokeOptions) error { ran = true; return nil },
		render: func(context.Context, *RenderOptions) error { ran = true; return nil }}
	for _, args := range [][]string{{"invoke", "notes"}, {"invoke", "a", "b", "--deadline", "soon"}, {"render"}, {"render", "x", "-w", "wide"}} {
		ios, _, _ := fakeStreams(false)
		if code := execute(context.Background(), args, ios, hooks); code != ExitUsage || ran {
			t.Errorf("%q: exit %d, ran %v", args, code, ran)
		}
	}
}

// TestRefusalTable pins the one mapping from runner errors to outcome and
// exit code.
func TestRefusalTable(t *testing.T) {
	for _, tt := range []struct {
		err     error
		outcome string
		code    int
		message string
	}{
		{&runner.InputError{Schema: "s/v1", Violations: modproto.ValidationErrors{{Path: "/a", Detail: "required"}}}, outcomeInputInvalid, ExitInputInvalid,
			"input is invalid against request schema s/v1; nothing ran"},
		{fmt.Errorf("%w: x", runner.ErrBroken), outcomeBroken, ExitHostVerdict, "module is broken: x; nothing ran"},
		{&runner.SchemaError{Schema: "s", Capability: "c", Err: errors.New("bad")}, outcomeSchemaInvalid, ExitHostVerdict,
			`request schema "s" of c does not compile: bad; nothing ran`},
		{fmt.Errorf("%w: x", runner.ErrDisabled), outcomeDisabled, ExitHostVerdict, "module is disabled: x; nothing ran"},
		{runner.ErrApprovalRequired, outcomeApprovalRequired, ExitApprovalRequired, "approval required: the call was not run; nothing ran"},
		{&notStarted{errors.New("root work: denied")}, outcomeNotRun, ExitHostVerdict, "root work: denied"},
		{fmt.Errorf("%w: nope", runner.ErrUnknownCapability), outcomeUsage, ExitUsage, "unknown capability: nope"},
		{fmt.Errorf("%w: nope", runner.ErrNotFound), outcomeUsage, ExitUsage, "module not found: nope"},
	} {
		r := refusalOf(tt.err)
		if r.Outcome != tt.outcome || r.Code != tt.code || r.Message != tt.message {
			t.Errorf("refusalOf(%v) = %s/%d %q, want %s/%d %q", tt.err, r.Outcome, r.Code, r.Message, tt.outcome, tt.code, tt.message)
		}
		if !errors.Is(r, tt.err) {
			t.Errorf("refusalOf(%v) lost the runner error", tt.err)
		}
	}
	if r := refusalOf(&runner.InputError{Schema: "s", Violations: modproto.ValidationErrors{{Path: "/a", Detail: "d"}}}); len(r.Reasons) != 1 {
		t.Errorf("input reasons = %q", r.Reasons)
	}
}

// TestResultCode pins the exit code of a run that happened.
func TestResultCode(t *testing.T) {
	ok := &modproto.Envelope{OK: true}
	bad := &modproto.Envelope{OK: false, Error: &modproto.Error{Code: "x"}}
	for _, tt := range []struct {
		res  *runner.Result
		want int
	}{
		{&runner.Result{Envelope: ok}, ExitOK},
		{&runner.Result{Envelope: bad}, ExitModuleError},
		{&runner.Result{Envelope: ok, Host: &runner.HostError{Code: "host_timeout"}}, ExitHostVerdict},
		{&runner.Result{}, ExitModuleError},
	} {
		if got := resultCode(tt.res); got != tt.want {
			t.Errorf("resultCode(%+v) = %d, want %d", tt.res, got, tt.want)
		}
	}
}
