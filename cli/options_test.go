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
		cockpit:  func(_ context.Context, o *CockpitOptions) error { return capture(o) },
		list:     func(_ context.Context, o *ListOptions) error { return capture(o) },
		describe: func(_ context.Context, o *DescribeOptions) error { return capture(o) },
		validate: func(_ context.Context, o *ValidateOptions) error { return capture(o) },
		invoke:   func(_ context.Context, o *InvokeOptions) error { return capture(o) },
		render:   func(_ context.Context, o *RenderOptions) error { return capture(o) },
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
