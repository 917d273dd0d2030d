package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/approval"
	"modbay/config"
	"modbay/gateway"
	"modbay/history"
	"modbay/modproto"
	"modbay/runner"
	"modbay/ui"
)

// cockpitOf listens as a cockpit of home would, for the test's questions.
func cockpitOf(t *testing.T, home, by string) *approval.Listener {
	t.Helper()
	l, err := approval.Listen(filepath.Join((&config.Config{Home: home}).ServeDir(), approval.SocketsDir), by)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func nextAsk(t *testing.T, l *approval.Listener) *approval.Question {
	t.Helper()
	select {
	case ev := <-l.Events():
		if ev.Ask == nil {
			t.Fatalf("event %+v, want a question", ev)
		}
		return ev.Ask
	case <-time.After(30 * time.Second):
		t.Fatal("no question reached the cockpit")
	}
	return nil
}

func TestMCPServeApprovalAnsweredInTheCockpit(t *testing.T) {
	home := demo(t)
	one, two := cockpitOf(t, home, "the cockpit (one)"), cockpitOf(t, home, "the cockpit (two)")
	asked := 0
	// The client can elicit, but the cockpit is asked first.
	cs := serveSession(t, home, approvalClient("deny", &asked))
	type reply struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan reply, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch_url", Arguments: fetchArgs})
		done <- reply{res, err}
	}()
	q := nextAsk(t, one)
	if q2 := nextAsk(t, two); q2.ID != q.ID {
		t.Fatalf("two cockpits asked different questions: %s %s", q.ID, q2.ID)
	}
	if q.Tool != "fetch_url" || q.Module != "fetch" || !strings.Contains(q.Client, "client") || len(q.Reasons) == 0 || !strings.Contains(string(q.Input), "127.0.0.1:9") {
		t.Errorf("question %+v", q)
	}
	if err := one.Answer(q.ID, approval.Once); err != nil {
		t.Fatal(err)
	}
	// The other cockpit's question is withdrawn.
	select {
	case ev := <-two.Events():
		if ev.Withdrawn != q.ID {
			t.Errorf("second cockpit got %+v, want the withdrawal", ev)
		}
	case <-time.After(10 * time.Second):
		t.Error("the second cockpit's question was not withdrawn")
	}
	if err := two.Answer(q.ID, approval.Deny); err == nil {
		t.Error("a withdrawn question was answered")
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if asked != 0 || strings.Contains(textOf(r.res), "Approval required") {
		t.Errorf("asked by elicitation %d times; %s", asked, textOf(r.res))
	}
	runs := runsOf(t, home)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	if rec := recordOf(t, home, runs[0].RunID); !rec.Approved || rec.ApprovedBy != "the cockpit (one)" || rec.Enforcement == nil {
		t.Errorf("record: approved %v by %q enforcement %v", rec.Approved, rec.ApprovedBy, rec.Enforcement)
	}
}

func TestMCPServeApprovalPendingThenRetry(t *testing.T) {
	home := demo(t)
	cockpit := cockpitOf(t, home, "the cockpit")
	var mu sync.Mutex
	var progress []string
	cs := serveSession(t, home, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, r.Params.Message)
		mu.Unlock()
	}}, "--approval-wait", "400ms")
	call := func() *mcp.CallToolResult {
		p := &mcp.CallToolParams{Name: "fetch_url", Arguments: fetchArgs}
		p.SetProgressToken("wait")
		res, err := cs.CallTool(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := call()
	q := nextAsk(t, cockpit)
	if !res.IsError || res.Meta["modbay/code"] != "approval_pending" || !strings.Contains(textOf(res), "approval pending (id "+q.ID+")") {
		t.Fatalf("unanswered: %v %s", res.Meta, textOf(res))
	}
	// Notifications may be handled after the result: wait for the first.
	waitUntil(t, "progress was sent while the call waited", func() bool { mu.Lock(); defer mu.Unlock(); return len(progress) > 0 })
	mu.Lock()
	if !strings.Contains(progress[0], "waiting for a person's approval in the modbay cockpit (id "+q.ID+")") {
		t.Errorf("progress while waiting: %q", progress)
	}
	mu.Unlock()
	// Answered after the call returned: the same call retried runs, once.
	if err := cockpit.Answer(q.ID, approval.Once); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the answer crosses the socket
	if res := call(); res.Meta["modbay/code"] == "approval_pending" || strings.Contains(textOf(res), "Approval required") {
		t.Fatalf("retry after the answer: %s", textOf(res))
	}
	// A third call is a new question: the answer applied once.
	if res := call(); res.Meta["modbay/code"] != "approval_pending" {
		t.Errorf("third call: %s", textOf(res))
	}
	nextAsk(t, cockpit)
	runs := runsOf(t, home)
	var pending, ran int
	for _, r := range runs {
		rec := recordOf(t, home, r.RunID)
		switch {
		case rec.Approved && rec.ApprovedBy == "the cockpit":
			ran++
		case rec.Host != nil && strings.Contains(rec.Host.Detail, "not run: approval pending (id apr_"):
			pending++
			// The record's time is the wait, not 0s.
			if rec.DurationMS < 400 {
				t.Errorf("a call that waited --approval-wait 400ms is recorded as taking %d ms", rec.DurationMS)
			}
		}
	}
	if ran != 1 || pending != 2 {
		t.Errorf("recorded %d run, %d pending of %d", ran, pending, len(runs))
	}
}

// TestMCPServeApprovalOutlivesItsProcess: a question asked by a serve
// process that then ends (as the Inspector CLI starts one per command)
// stays open in the cockpit; the answer given then applies, once, to the
// same call made through a later serve process of the home.
func TestMCPServeApprovalOutlivesItsProcess(t *testing.T) {
	home := demo(t)
	cockpit := cockpitOf(t, home, "the cockpit")
	call := func(cs *mcp.ClientSession) *mcp.CallToolResult {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch_url", Arguments: fetchArgs})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := serveSession(t, home, nil, "--approval-wait", "300ms")
	if res := call(first); res.Meta["modbay/code"] != "approval_pending" {
		t.Fatalf("first call: %s", textOf(res))
	}
	q := nextAsk(t, cockpit)
	first.Close()
	select {
	case ev := <-cockpit.Events():
		if ev.Orphaned != q.ID {
			t.Fatalf("after its serve process ended: %+v, want the question kept open", ev)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cockpit heard nothing when the serve process ended")
	}
	if err := cockpit.Answer(q.ID, approval.Once); err != nil {
		t.Fatalf("answer after the process ended: %v", err)
	}
	second := serveSession(t, home, nil, "--approval-wait", "300ms")
	// It runs (the fetch of a closed port fails: it ran).
	if res := call(second); res.Meta["modbay/code"] == "approval_pending" || res.Meta["modbay/run"] == nil || strings.Contains(textOf(res), "Approval required") {
		t.Fatalf("the same call through a later serve process: %v %s", res.Meta, textOf(res))
	}
	// Applied once: the next call asks again.
	if res := call(second); res.Meta["modbay/code"] != "approval_pending" {
		t.Errorf("a second call ran on the same answer: %s", textOf(res))
	}
	var ran int
	for _, r := range runsOf(t, home) {
		if rec := recordOf(t, home, r.RunID); rec.Approved && rec.ApprovedBy == "the cockpit" {
			ran++
		}
	}
	if ran != 1 {
		t.Errorf("%d runs approved by the cockpit, want 1", ran)
	}
}

// TestMCPServeApprovalInTheRealCockpit runs the cockpit in tmux and an
// agent (the Go SDK's client) through mcp serve: the agent's call waits
// while the cockpit shows the approval dialog, and a person's "a" lets it
// run.
func TestMCPServeApprovalInTheRealCockpit(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	home := demo(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sock := fmt.Sprintf("modbay-test-%d", os.Getpid())
	tm := func(args ...string) string {
		out, _ := exec.Command(tmux, append([]string{"-L", sock}, args...)...).CombinedOutput()
		return string(out)
	}
	t.Cleanup(func() { tm("kill-server") })
	tm("new-session", "-d", "-x", "110", "-y", "40", fmt.Sprintf("%s=1 TERM=xterm-256color exec %s --home %s", asModbayEnv, self, home))
	sockets := filepath.Join(home, "serve", "cockpits", "*.sock")
	waitUntil(t, "the cockpit listens", func() bool { m, _ := filepath.Glob(sockets); return len(m) == 1 })

	cs := serveSession(t, home, nil)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch_url", Arguments: fetchArgs})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	var screen string
	waitUntil(t, "the cockpit shows the agent's question", func() bool {
		screen = tm("capture-pane", "-p")
		return strings.Contains(screen, "Approve this agent's call?")
	})
	for _, want := range []string{"Agent", "client (through modbay mcp serve)", "fetch.url", "127.0.0.1:9", "1 agent call to approve"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the cockpit does not show %q:\n%s", want, screen)
		}
	}
	select {
	case res := <-done:
		t.Fatalf("the call returned before the person answered: %s", textOf(res))
	default:
	}
	time.Sleep(600 * time.Millisecond) // past the grace period
	tm("send-keys", "a")
	var res *mcp.CallToolResult
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the call did not end after the person allowed it:\n%s", tm("capture-pane", "-p"))
	}
	runs := runsOf(t, home)
	if len(runs) != 1 {
		t.Fatalf("%d runs: %s", len(runs), textOf(res))
	}
	if rec := recordOf(t, home, runs[0].RunID); !rec.Approved || !strings.HasPrefix(rec.ApprovedBy, "the cockpit (pid ") {
		t.Errorf("record: approved %v by %q", rec.Approved, rec.ApprovedBy)
	}
	if screen := tm("capture-pane", "-p"); strings.Contains(screen, "agent call to approve") {
		t.Errorf("the badge stayed after the answer:\n%s", screen)
	}
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestMCPServeSkillsAsPrompts(t *testing.T) {
	home := demo(t)
	cs := serveSession(t, home, nil)
	ctx := context.Background()
	var names []string
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	if !slices.Contains(names, "notes_notes-report") {
		t.Fatalf("prompts %v", names)
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "notes_notes-report"})
	if err != nil || len(got.Messages) != 1 || !strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, "notes") {
		t.Fatalf("prompt: %v %+v", err, got)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "modbay://modules/notes/skills/notes-report"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "---") {
		t.Errorf("module skill as a resource: %v %+v", err, rr)
	}
}

func TestHistoryFiltersBySource(t *testing.T) {
	home := demo(t)
	if code, _, stderr := run(t, "--home", home, "invoke", "notes", "notes.report"); code != 0 {
		t.Fatalf("invoke: %s", stderr)
	}
	cs := serveSession(t, home, nil)
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "notes_report", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("call: %v", err)
	}
	for src, want := range map[string]string{"mcp-serve": "mcp serve", "mcp serve": "mcp serve", "invoke": "invoke"} {
		code, out, stderr := run(t, "--home", home, "history", "--source", src, "--json")
		var runs []historyOut
		if code != 0 || json.Unmarshal([]byte(out), &runs) != nil || len(runs) != 1 || runs[0].Source != want {
			t.Errorf("--source %s: exit %d %s %s", src, code, out, stderr)
		}
	}
	if code, _, stderr := run(t, "--home", home, "history", "--source", "agent"); code != ExitUsage || !strings.Contains(stderr, "mcp-serve") {
		t.Errorf("unknown source: exit %d %s", code, stderr)
	}
}

func TestMCPToolsShowsWhatTheClientSees(t *testing.T) {
	home := demo(t)
	code, out, stderr := run(t, "--home", home, "mcp", "tools", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var list []struct {
		Tool *mcp.Tool `json:"tool"`
		Pin  string    `json:"pin"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	served := listTools(t, serveSession(t, home, nil))
	for _, l := range list {
		s := served[l.Tool.Name]
		if s == nil || s.Description != l.Tool.Description || l.Pin != "new" {
			t.Errorf("%s: listed %q (pin %s), served %+v", l.Tool.Name, l.Tool.Description, l.Pin, s)
		}
	}
	if len(list) == 0 || len(list) != len(served)-3 { // the three job tools
		t.Errorf("%d listed, %d served", len(list), len(served))
	}
	if _, out, _ := run(t, "--home", home, "mcp", "tools"); !strings.Contains(out, "notes_report  (notes.report)") ||
		!strings.Contains(out, "--tools/--exclude name: notes/notes.report") || strings.Contains(out, "selected as") {
		t.Errorf("text:\n%s", out)
	}
	if _, out, _ := run(t, "--home", home, "mcp", "tools", "--tools", "notes"); !strings.Contains(out, "selected as notes/notes.report by the --tools/--exclude patterns") {
		t.Errorf("text with --tools:\n%s", out)
	}
	// Served once, each is pinned.
	_, out, _ = run(t, "--home", home, "mcp", "tools", "--json")
	if strings.Contains(out, `"pin": "new"`) || !strings.Contains(out, `"pin": "pinned"`) {
		t.Errorf("after serving:\n%s", out)
	}
}

func TestMCPServeApprovalDeniedInTheCockpit(t *testing.T) {
	home := demo(t)
	cockpit := cockpitOf(t, home, "the cockpit (pid 1)")
	cs := serveSession(t, home, nil)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch_url", Arguments: fetchArgs})
		done <- res
	}()
	q := nextAsk(t, cockpit)
	if err := cockpit.Answer(q.ID, approval.Deny); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res == nil || !res.IsError || !strings.Contains(textOf(res), "denied by the person in the cockpit (pid 1)") || res.Meta["modbay/kind"] != "authz" ||
		res.Meta["modbay/code"] != "denied" || !strings.HasPrefix(textOf(res), "error denied (authz): ") {
		t.Fatalf("denied: %+v", res)
	}
	runs := runsOf(t, home)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	if rec := recordOf(t, home, runs[0].RunID); rec.Approved || rec.Host == nil || rec.Host.Detail != "not run: denied in the cockpit (pid 1)" {
		t.Errorf("record: approved %v host %+v", rec.Approved, rec.Host)
	}
}

func TestMCPServeListsLiveSessions(t *testing.T) {
	home := demo(t)
	dir := filepath.Join(home, "serve", "sessions")
	cs := serveSession(t, home, nil)
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "notes_report", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("call: %v", err)
	}
	var ls []gateway.LiveSession
	waitUntil(t, "the session is listed with its call", func() bool {
		ls, _ = gateway.ReadSessions(dir)
		return len(ls) == 1 && ls[0].Calls == 1 && ls[0].Running == 0
	})
	if !strings.Contains(ls[0].Client, "client") || ls[0].Transport != "stdio" || ls[0].PID == os.Getpid() || ls[0].NotRun != 0 {
		t.Errorf("session %+v", ls[0])
	}
	// Calls answered with nothing run count among its calls, and apart:
	// an invalid input, a tool not served, one that needs approval.
	ctx := context.Background()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "farm_render", Arguments: map[string]any{"frames": 1000}}); err != nil || !res.IsError {
		t.Fatalf("invalid input: %v %+v", err, res)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}}); err == nil {
		t.Fatal("a tool not served answered")
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch_url", Arguments: fetchArgs}); err != nil || !res.IsError {
		t.Fatalf("approval required: %v %+v", err, res)
	}
	waitUntil(t, "the session counts the calls not run", func() bool {
		ls, _ = gateway.ReadSessions(dir)
		return len(ls) == 1 && ls[0].Calls == 4 && ls[0].NotRun == 3
	})
	if s := ls[0].String(); !strings.Contains(s, ": 4 calls (3 not run), 0 running, 0 pending approvals") {
		t.Errorf("session line %q", s)
	}
	cs.Close()
	waitUntil(t, "the session is gone", func() bool { ls, _ = gateway.ReadSessions(dir); return len(ls) == 0 })
}

// TestMCPServeApprovalReaskedAfterCockpitRestart: a question whose
// cockpit went away is asked again of the cockpit running now when the
// agent retries, not refused as if no cockpit ran.
func TestMCPServeApprovalReaskedAfterCockpitRestart(t *testing.T) {
	home := demo(t)
	first, err := approval.Listen(filepath.Join((&config.Config{Home: home}).ServeDir(), approval.SocketsDir), "the first cockpit")
	if err != nil {
		t.Fatal(err)
	}
	cs := serveSession(t, home, nil, "--approval-wait", "400ms")
	call := func() *mcp.CallToolResult {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch_url", Arguments: fetchArgs})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call(); res.Meta["modbay/code"] != "approval_pending" {
		t.Fatalf("first call: %v %s", res.Meta, textOf(res))
	}
	nextAsk(t, first)
	first.Close() // the cockpit quits
	second := cockpitOf(t, home, "the second cockpit")
	if res := call(); res.Meta["modbay/code"] != "approval_pending" {
		t.Fatalf("retry after the restart: %v %s", res.Meta, textOf(res))
	}
	q := nextAsk(t, second)
	if err := second.Answer(q.ID, approval.Once); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the answer crosses the socket
	// It ran (the fetch itself fails: nothing listens on port 9).
	if res := call(); res.Meta["modbay/kind"] == "not_run" || res.Meta["modbay/kind"] == "authz" {
		t.Fatalf("retry after the second cockpit's answer: %v %s", res.Meta, textOf(res))
	}
	// history show says whose client asked and who approved.
	for _, r := range runsOf(t, home) {
		if rec := recordOf(t, home, r.RunID); rec.Approved {
			_, out, _ := run(t, "--home", home, "history", "show", r.RunID)
			if !strings.Contains(out, "by mcp serve for the agent's client test") || !strings.Contains(out, "approved  by the second cockpit\n") {
				t.Errorf("history show:\n%s", out)
			}
		}
	}
}

// TestMCPServeCallFollowedInTheRealCockpit runs the cockpit in tmux and
// an agent's slow call through mcp serve: opened from A while it runs,
// the call shows its stderr as the module writes it, before its end,
// and its result once it ends. The module waits on a FIFO the test
// writes, so "before the end" is not a matter of timing.
func TestMCPServeCallFollowedInTheRealCockpit(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	home := t.TempDir()
	ws := filepath.Join(home, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "go"), 0o600); err != nil {
		t.Fatal(err)
	}
	exe := scriptModule(t, modproto.Descriptor{Module: "slowpoke", Name: "Slowpoke", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{{ID: "slowpoke.work", Title: "Work", Summary: "Works slowly.", Effects: localEffects}}},
		`req=""; while IFS= read -r l || [ -n "$l" ]; do req="$req$l"; done < "$5"; ws=${req#*\"workspace\":\{\"path\":\"}; ws=${ws%%\"*}; `+
			`id=${req#*\"request_id\":\"}; id=${id%%\"*}; echo "step 1 of 2: warming up" >&2; read x < "$ws/go"; echo "step 2 of 2" >&2; `+
			`printf '{"protocol":"xibodev.module/v1","module":"slowpoke","operation":"invoke","request_id":"%s","ok":true,"result":{"said":"finished slowly"},"warnings":[],"execution":{"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]}}' "$id"`)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sock := fmt.Sprintf("modbay-follow-%d", os.Getpid())
	tm := func(args ...string) string {
		out, _ := exec.Command(tmux, append([]string{"-L", sock}, args...)...).CombinedOutput()
		return string(out)
	}
	t.Cleanup(func() { tm("kill-server") })
	tm("new-session", "-d", "-x", "100", "-y", "30", fmt.Sprintf("%s=1 TERM=xterm-256color exec %s --home %s --module %s", asModbayEnv, self, home, exe))
	screen := func() string { return tm("capture-pane", "-p") }
	waitUntil(t, "the cockpit lists the module", func() bool { return strings.Contains(screen(), "Slowpoke") })

	cs := serveSession(t, home, nil, "--module", exe)
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slowpoke_work", Arguments: map[string]any{}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	waitUntil(t, "the call is recorded running", func() bool {
		runs := runsOf(t, home)
		return len(runs) == 1 && runs[0].Status == history.StatusRunning
	})
	tm("send-keys", "A")
	waitUntil(t, "A lists the agent's call", func() bool { return strings.Contains(screen(), "1 running") })
	tm("send-keys", "Enter")
	waitUntil(t, "the run view shows the call's stderr before its end", func() bool {
		s := screen()
		return strings.Contains(s, "running in modbay mcp serve") && strings.Contains(s, "step 1 of 2: warming up")
	})
	select {
	case res := <-done:
		t.Fatalf("the call ended before the module was let go: %s", textOf(res))
	default:
	}
	f, err := os.OpenFile(filepath.Join(ws, "go"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("go\n")
	f.Close()
	select {
	case res := <-done:
		if res.IsError {
			t.Fatalf("the call failed: %s", textOf(res))
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the call did not end:\n%s", screen())
	}
	waitUntil(t, "the result replaces the run view", func() bool {
		s := screen()
		return strings.Contains(s, "finished slowly") && !strings.Contains(s, "running in modbay mcp serve")
	})
}

// TestAgentToolsListWhatServeServes: the cockpit's agent tools screen
// lists what serve processes of the home serve — their workspace and
// patterns — and, with none running, what serve would serve for the
// home, never the cockpit's own --examples.
func TestAgentToolsListWhatServeServes(t *testing.T) {
	home := t.TempDir()
	exe := scriptModule(t, modproto.Descriptor{Module: "slowpoke", Name: "Slowpoke", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{{ID: "slowpoke.work", Title: "Work", Summary: "Works.", Effects: localEffects},
			{ID: "slowpoke.rest", Title: "Rest", Summary: "Rests.", Effects: localEffects}}}, `exit 1`)
	dir := filepath.Join(home, "modules", "slowpoke")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "slowpoke"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	g := &globals{home: home, examples: true, io: systemStreams(io.Discard, io.Discard)}
	e, err := g.env(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	list := agentTools(g, func() *runner.Host { return e.host })
	names := func(c ui.AgentCatalogue) []string {
		var out []string
		for _, tool := range c.Tools {
			out = append(out, tool.Name)
		}
		slices.Sort(out)
		return out
	}
	c, err := list(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := names(c); !slices.Equal(got, []string{"slowpoke_rest", "slowpoke_work"}) || !strings.Contains(c.From, "No modbay mcp serve runs") ||
		!strings.Contains(c.From, "not this cockpit's --examples") {
		t.Errorf("with no serve: %v, %q", got, c.From)
	}
	if c.Stale == nil || c.Stale() {
		t.Fatal("the listing with no serve is stale, or cannot tell")
	}
	computed := c

	other := t.TempDir()
	cs := serveSession(t, home, nil, "--workspace", other, "--exclude", "slowpoke/slowpoke.rest")
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slowpoke_work", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the session is published", func() bool {
		ls, _ := gateway.ReadSessions(filepath.Join(home, "serve", gateway.SessionsDir))
		return len(ls) == 1
	})
	c, err = list(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := names(c); !slices.Equal(got, []string{"slowpoke_work"}) || !strings.Contains(c.From, "As modbay mcp serve (pid ") ||
		!strings.Contains(c.From, "client") || !strings.Contains(c.From, "workspace "+other) || !strings.Contains(c.From, "slowpoke/slowpoke.rest") {
		t.Errorf("with serve: %v, %q", got, c.From)
	}
	// Liveness, asked on each refresh tick: the computed listing went
	// stale once serve ran; the served one goes stale when serve ends.
	if !computed.Stale() {
		t.Error("the computed listing is not stale though a serve process runs")
	}
	if c.Stale() {
		t.Error("the served listing is stale while its process runs")
	}
	cs.Close()
	waitUntil(t, "the served listing goes stale after its process ended", c.Stale)
	if c, err = list(context.Background()); err != nil || !strings.Contains(c.From, "No modbay mcp serve runs") {
		t.Errorf("after serve ended: %v %q", err, c.From)
	}
}
