package runner

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExchangeRecordsTheProcessCall: a run's raw exchange holds the argv
// with the real request path, the environment (TMPDIR only), the working
// directory, the request file's bytes as written, stdout as received, the
// exit and every phase's timing.
func TestExchangeRecordsTheProcessCall(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("good", "good")
	m := f.load("good")
	p, err := f.host.Plan(m, "t.echo", json.RawMessage(`{"name":"ada","count":2}`))
	if err != nil {
		t.Fatal(err)
	}
	x := NewExchange()
	res, err := f.host.RunWith(ctxGuard(t), p, RunOptions{Approved: true, Record: x.Recorder()})
	if err != nil || !res.OK() {
		t.Fatalf("%v %+v", err, res.Host)
	}
	calls := x.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d calls", len(calls))
	}
	c := calls[0]
	sent, _ := json.Marshal(p.Request)
	if c.RequestID != res.RequestID || !bytes.Equal(c.Request, sent) {
		t.Fatalf("request %s\nwant %s", c.Request, sent)
	}
	if len(c.Argv) != 5 || c.Argv[2] != "t.echo" || !strings.HasSuffix(c.Argv[4], "/request.json") {
		t.Fatalf("argv %q", c.Argv)
	}
	if len(c.Env) != 1 || !strings.HasPrefix(c.Env[0], "TMPDIR=") || c.Dir == "" {
		t.Fatalf("env %q dir %q", c.Env, c.Dir)
	}
	if !bytes.Equal(c.Stdout, res.Stdout) || c.StdoutBytes != len(res.Stdout) || c.Exit == nil || c.Exit.Code != 0 {
		t.Fatalf("stdout %q exit %+v", c.Stdout, c.Exit)
	}
	var phases []string
	for _, tm := range c.Timings() {
		if tm.Duration < 0 {
			t.Errorf("%s took %s", tm.Phase, tm.Duration)
		}
		phases = append(phases, tm.Phase)
	}
	if got := strings.Join(phases, " "); got != "spawn first_byte exit verify stage" {
		t.Fatalf("phases %q", got)
	}
	path, err := f.host.SaveRequest(c.RequestID, c.Request)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%v %v", fi.Mode(), err)
	}
	if _, err := f.host.SaveRequest("../escape", nil); err == nil {
		t.Fatal("a request id that is not the host's named a file")
	}
}

// TestInvokeLine: the copied invoke line quotes its input for a POSIX
// shell (secrets are withheld before, by schema.Redact).
func TestInvokeLine(t *testing.T) {
	if got := InvokeLine(Globals{}, "mod", "c.x", json.RawMessage(`{"q":"it's"}`)); got != `modbay invoke mod c.x --input '{"q":"it'\''s"}'` {
		t.Fatalf("%s", got)
	}
}

// TestExchangeKeepsJSONRPCMessages: a session call's JSON-RPC frames (an
// MCP driver's FrameJSONRPC) are kept in order with their direction,
// each cut to ExchangeStdoutShown, at most ExchangeMessagesKept of them.
func TestExchangeKeepsJSONRPCMessages(t *testing.T) {
	x := NewExchange()
	rec := x.Recorder()
	const id = "req_00000000000000000000000000000001"
	rec(Frame{RequestID: id, Direction: FrameSent, Kind: FrameJSONRPC, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)})
	big := append([]byte(`{"jsonrpc":"2.0","id":1,"result":"`), make([]byte, ExchangeStdoutShown)...)
	rec(Frame{RequestID: id, Direction: FrameReceived, Kind: FrameJSONRPC, Data: big})
	for range ExchangeMessagesKept {
		rec(Frame{RequestID: id, Direction: FrameReceived, Kind: FrameJSONRPC, Data: []byte(`{}`)})
	}
	calls := x.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d calls", len(calls))
	}
	ms := calls[0].Messages
	if len(ms) != ExchangeMessagesKept || calls[0].MessagesDropped != 2 {
		t.Fatalf("%d messages kept, %d dropped", len(ms), calls[0].MessagesDropped)
	}
	if ms[0].Direction != FrameSent || string(ms[0].Data) != `{"jsonrpc":"2.0","id":1,"method":"tools/call"}` {
		t.Errorf("first message %+v", ms[0])
	}
	if ms[1].Direction != FrameReceived || len(ms[1].Data) != ExchangeStdoutShown || ms[1].Bytes != len(big) {
		t.Errorf("second message: %d bytes kept of %d", len(ms[1].Data), ms[1].Bytes)
	}
}

// TestModuleRefNamesExamplesByID: a copied invoke line names a module
// under <home>/modules and a built-in example by id (an example's
// launcher lives in a directory that goes stale), anything else by its
// executable.
func TestModuleRefNamesExamplesByID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		m    Module
		want string
	}{
		{Module{ID: "notes", Origin: OriginExamples, Exe: "/home/u/.local/share/modbay/examples/k/notes/notes"}, "notes"},
		{Module{ID: "mine", Origin: OriginHome, Exe: "/home/u/.local/share/modbay/modules/mine/mine"}, "mine"},
		{Module{ID: "flagged", Origin: OriginFlag, Exe: "/src/flagged/flagged"}, "/src/flagged/flagged"},
	} {
		if got := ModuleRef(&c.m); got != c.want {
			t.Errorf("ModuleRef(%s from %s) = %q, want %q", c.m.ID, c.m.Origin, got, c.want)
		}
	}
}

// TestCopyLinesOfAHandoffRunSayTheHandoffIsGone: the m line of a run that
// was handed an artifact names the run's handoff directory, removed when
// the run ended; the note says so, and the c line hands it again.
func TestCopyLinesOfAHandoffRunSayTheHandoffIsGone(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.addModule("echo", "good")
	m := f.load("echo")
	src, digest := handoffSource(t, "# report\n")
	p, err := f.host.PlanWith(m, "t.echo", []byte(`{"name":"ada"}`), PlanOptions{Handoff: []HandoffFile{
		{Root: "corpus", Source: src, Name: "report.md", Digest: digest, Origin: "r1:report"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	x := NewExchange()
	if res, err := f.host.RunWith(ctxGuard(t), p, RunOptions{Approved: true, Record: x.Recorder()}); err != nil || !res.OK() {
		t.Fatalf("%v %+v", err, res)
	}
	cp := f.host.CopyLines(p, ModuleRef(m), json.RawMessage(`{"name":"ada"}`), x.Calls())
	if cp.ModuleCall == "" || !strings.Contains(cp.Invoke, "--artifact corpus=r1:report") {
		t.Fatalf("copy lines %+v", cp)
	}
	if !strings.HasPrefix(cp.Note, ModuleCallNote) || !strings.Contains(cp.Note, "handoff directory it names for read root corpus was removed when the run ended") {
		t.Fatalf("note %q", cp.Note)
	}
	plain := f.host.CopyLines(&Plan{Module: m, Capability: p.Capability}, ModuleRef(m), json.RawMessage(`{"name":"ada"}`), x.Calls())
	if plain.Note != ModuleCallNote {
		t.Fatalf("a run handed nothing has note %q", plain.Note)
	}
}

// TestExchangeBoundsJSONRPCBytes: a call keeps at most
// ExchangeMessageBytesKept bytes of its messages' data, whatever their
// count; the rest are counted as dropped, and kept data does not hold on
// to the recorder's buffers.
func TestExchangeBoundsJSONRPCBytes(t *testing.T) {
	x := NewExchange()
	rec := x.Recorder()
	const id = "req_00000000000000000000000000000002"
	per := ExchangeMessageBytesKept / ExchangeStdoutShown
	buf := make([]byte, 2*ExchangeStdoutShown)
	for range per + 4 {
		rec(Frame{RequestID: id, Direction: FrameReceived, Kind: FrameJSONRPC, Data: buf})
	}
	c := x.Calls()[0]
	if len(c.Messages) != per || c.MessagesDropped != 4 {
		t.Fatalf("%d kept, %d dropped; want %d and 4", len(c.Messages), c.MessagesDropped, per)
	}
	buf[0] = 'x'
	if c.Messages[0].Data[0] == 'x' {
		t.Error("a kept message shares the frame's buffer")
	}
}

// TestShellJoin: a line ShellJoin makes, read back by a POSIX shell, is
// the words it was given, each bare only when it holds safe characters.
func TestShellJoin(t *testing.T) {
	words := []string{"/usr/bin/x", "it's", "", "a b", "$HOME", "*", "50%", "k=v,w@h:1", "`id`", "\\", "é"}
	line := ShellJoin(words)
	got, err := exec.Command("/bin/sh", "-c", "eval set -- \"$0\"; for w in \"$@\"; do printf '%s\\0' \"$w\"; done", line).Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(words, "\x00") + "\x00"; string(got) != want {
		t.Errorf("sh read %q back as %q", line, got)
	}
	for w, bare := range map[string]bool{"/usr/bin/x": true, "50%": true, "k=v,w@h:1": true, "a b": false, "": false, "é": false} {
		if got := ShellQuote(w) == w; got != bare {
			t.Errorf("ShellQuote(%q) = %q", w, ShellQuote(w))
		}
	}
}

// TestModuleCallLineKeepsTheShellsDirectory: the module call line, pasted
// in a shell, runs the module in a fresh directory and leaves the shell
// where it was (a subshell), as later commands on the same line show.
func TestModuleCallLineKeepsTheShellsDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "mod")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\necho \"module in $PWD\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", ModuleCallLine(exe, "x.run", filepath.Join(dir, "req.json"))+"; echo \"shell in $PWD\"")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || lines[0] == "module in "+dir || lines[1] != "shell in "+dir {
		t.Fatalf("want the module in a fresh directory and the shell still in %s, got:\n%s", dir, out)
	}
}
