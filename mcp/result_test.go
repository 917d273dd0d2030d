package mcp

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"modbay/config"
	"modbay/runner"
)

// TestContentAsSent runs results of testdata/content through a real
// stdio server: text byte for byte as text/plain, blocks judged one by
// one, every field the server sent kept and none invented.
func TestContentAsSent(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"raw": rawServer(t)})
	m := f.module("raw")

	res := f.run(m, "listing", `{}`, runner.RunOptions{})
	if !res.OK() || len(res.Artifacts) != 1 {
		t.Fatalf("listing: host %+v, %d artifacts", res.Host, len(res.Artifacts))
	}
	a := res.Artifacts[0]
	want := "[FILE] a.txt\n[FILE] grad.png\n[DIR] sub\nkey: value\nother: thing\n<b>bold</b> <script>x</script> __init__ `&gt;`\n"
	if b, _ := os.ReadFile(a.Staged); string(b) != want || a.MediaType != "text/plain" || a.Presentation == "markdown" {
		t.Errorf("listing staged %q as %s (%s), want the text as sent, text/plain", b, a.MediaType, a.Presentation)
	}

	res = f.run(m, "mixed", `{}`, runner.RunOptions{})
	if !res.OK() {
		t.Fatalf("mixed: host %+v envelope %+v", res.Host, res.Envelope)
	}
	if len(res.Artifacts) != 4 {
		t.Fatalf("mixed: %d artifacts %+v, want text, two images and the link", len(res.Artifacts), res.Artifacts)
	}
	png := testdataPNG(t)
	for _, i := range []int{1, 2} {
		if b, _ := os.ReadFile(res.Artifacts[i].Staged); string(b) != string(png) || res.Artifacts[i].MediaType != "image/png" {
			t.Errorf("image %d staged as %s differs from the server's bytes", i, res.Artifacts[i].MediaType)
		}
	}
	link, _ := os.ReadFile(res.Artifacts[3].Staged)
	if string(link) != `{"type":"resource_link","uri":"file:///srv/a.txt","name":"a.txt","description":"the first file"}` {
		t.Errorf("link staged as %s, want the block as sent", link)
	}
	warn := strings.Join(res.Envelope.Warnings, "\n")
	for _, w := range []string{"content block 1 (image): URL-safe base64", "content block 2 (image): sent as a data: URL",
		"content block 3 (image): the data is not base64", `content block 5 (hologram): type "hologram" is not shown`} {
		if !strings.Contains(warn, w) {
			t.Errorf("warnings lack %q:\n%s", w, warn)
		}
	}
	// The result keeps each block's fields in the order sent, and _meta.
	got := string(res.Envelope.Result)
	for _, w := range []string{
		`{"type":"text","annotations":{"audience":["user"],"priority":0.5},"_meta":{"z":1,"a":2},"artifact":"content-0"}`,
		`{"type":"image","mimeType":"image/png","refused":"the data is not base64:`,
		`{"type":"resource_link","uri":"file:///srv/a.txt","name":"a.txt","description":"the first file","artifact":"content-4"}`,
		`"_meta":{"trace":"t-1","b":true}}`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("result lacks %s:\n%s", w, got)
		}
	}
	if strings.Contains(got, `"size":null`) || strings.Contains(got, `"title":""`) {
		t.Errorf("result invents fields: %s", got)
	}

	res = f.run(m, "mislabeled", `{}`, runner.RunOptions{})
	if !res.OK() || len(res.Artifacts) != 1 || res.Artifacts[0].MediaType != "image/png" ||
		!strings.Contains(strings.Join(res.Envelope.Warnings, "\n"), "declared image/jpeg, its bytes are image/png") {
		t.Errorf("mislabeled: %+v %+v", res.Host, res.Artifacts)
	}
}

// testdataPNG is the PNG the content fixtures carry, from mislabeled.json.
func testdataPNG(t *testing.T) []byte {
	b, err := os.ReadFile("testdata/content/mislabeled.json")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Content []struct {
			Data string `json:"data"`
		} `json:"content"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	d, _, _, err := decodeData(r.Content[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestSessionFailedIsNotSpawn: a server that started, answered and then
// exited mid-call is a failed session, not a spawn failure.
func TestSessionFailedIsNotSpawn(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"raw": rawServer(t)})
	res := f.run(f.module("raw"), "exit", `{}`, runner.RunOptions{})
	if res.Host == nil || res.Host.Code != CodeSessionFailed {
		t.Fatalf("exit mid-call: host %+v, want %s", res.Host, CodeSessionFailed)
	}
}

// TestReadOnlyHintGivenFalse: a readOnlyHint the server wrote as false is
// quoted as the server's, not taken for one it left out (the SDK decodes
// both to false; the raw tools/list bytes tell them apart).
func TestReadOnlyHintGivenFalse(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"raw": rawServer(t)})
	p, err := f.host.Plan(f.module("raw"), "writes", []byte(`{}`))
	if err != nil || len(p.Approval) != 1 {
		t.Fatalf("writes: %v, approval %q", err, p.Approval)
	}
	if a := p.Approval[0]; !strings.Contains(a, "the server's readOnlyHint: false") || strings.Contains(a, "no readOnlyHint given") {
		t.Errorf("approval %q: want the given false quoted as the server's", a)
	}
}

// TestSessionFailedQuotesThisCallsStderr: a crash is explained by the
// error line its call's stderr holds, the last one before the exit, never
// an error-looking line an earlier call wrote.
func TestSessionFailedQuotesThisCallsStderr(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"raw": rawServer(t)})
	m := f.module("raw")
	if res := f.run(m, "grumble", `{}`, runner.RunOptions{}); !res.OK() {
		t.Fatalf("grumble: %+v", res.Host)
	}
	res := f.run(m, "exit", `{}`, runner.RunOptions{})
	if res.Host == nil || res.Host.Code != CodeSessionFailed {
		t.Fatalf("exit: host %+v, want %s", res.Host, CodeSessionFailed)
	}
	if d := res.Host.Detail; !strings.Contains(d, "Error: the raw server quits · bye") || strings.Contains(d, "earlier") || strings.Contains(d, "setLevel") {
		t.Errorf("detail %q: want this call's error line and the last line only", d)
	}
	// A crash whose own lines state no error quotes its last line, not
	// the error-looking lines of the call before it.
	if res := f.run(m, "grumble", `{}`, runner.RunOptions{}); !res.OK() {
		t.Fatalf("grumble: %+v", res.Host)
	}
	// stderr is its own pipe: wait until grumble's lines were read, so
	// they precede quit's call.
	d := f.src.Driver("raw")
	for i := 0; !strings.Contains(d.stderr.String(), "setLevel"); i++ {
		if i == 500 {
			t.Fatal("grumble's stderr never arrived")
		}
		time.Sleep(10 * time.Millisecond)
	}
	res = f.run(m, "quit", `{}`, runner.RunOptions{})
	if res.Host == nil || !strings.HasSuffix(res.Host.Detail, "before answering the call: bye") {
		t.Errorf("quit: host %+v, want its own last line", res.Host)
	}
}

// TestServerSessionKept: what a server said as it started (protocol
// version, capabilities, instructions, start-up stderr) is kept,
// sanitized, and read back by a later process without starting it.
func TestServerSessionKept(t *testing.T) {
	srv := rawServer(t)
	srv.Env[rawWarnEnv] = "1"
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"raw": srv})
	if res := f.run(f.module("raw"), "grumble", `{}`, runner.RunOptions{}); !res.OK() {
		t.Fatalf("grumble: %+v", res.Host)
	}
	ss := f.src.Driver("raw").Session()
	if ss == nil || ss.ProtocolVersion != "2025-06-18" || strings.Join(ss.Capabilities, ";") != "resources;tools (listChanged)" ||
		ss.Instructions != "Call grumble first.␛[31m" {
		t.Fatalf("session %+v", ss)
	}
	// stderr is its own pipe: what came before initialize's answer is
	// kept, sanitized (it may not all have come yet).
	if strings.Contains(ss.StartupStderr, "\x1b") || ss.StartupStderr != "" && !strings.HasPrefix("Warning: Cannot access directory /nope␛[2J", ss.StartupStderr) {
		t.Errorf("start-up stderr %q", ss.StartupStderr)
	}
	cfg, err := config.Load(f.home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MCPServers = map[string]config.MCPServer{"raw": srv}
	src := NewSource(cfg, nil)
	t.Cleanup(func() { _ = src.Close() })
	d := src.Driver("raw")
	if _, err := d.Fingerprint(); err != nil {
		t.Fatal(err)
	}
	if got := d.Session(); got == nil || got.ProtocolVersion != ss.ProtocolVersion || got.Instructions != ss.Instructions {
		t.Errorf("read back %+v, want %+v", got, ss)
	}
	if d.Status().State == runner.LifecycleReady {
		t.Error("reading the kept session started the server")
	}
}

// TestStructuredKeepsContentBeside: with structuredContent the result is
// that, as sent, and the content entries and the result's _meta come
// beside it (Result.Beside), whole and in the order sent, so the result
// screen shows every field the server sent.
func TestStructuredKeepsContentBeside(t *testing.T) {
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"raw": rawServer(t)})
	m := f.module("raw")
	res := f.run(m, "structured", `{}`, runner.RunOptions{})
	if !res.OK() {
		t.Fatalf("structured: host %+v envelope %+v", res.Host, res.Envelope)
	}
	if got := string(res.Envelope.Result); got != `{"zone":"B","temp":21.5,"unit":"C"}` {
		t.Errorf("result %s, want structuredContent as sent", got)
	}
	want := `{"content":[{"type":"text","annotations":{"priority":1},"artifact":"content-0"},{"type":"text","artifact":"content-1"}],"_meta":{"zz":"first","aa":{"y":1,"b":2}}}`
	if got := string(res.Beside); got != want {
		t.Errorf("beside:\n got %s\nwant %s", got, want)
	}
	// Without structuredContent nothing is beside: the result holds it all.
	if res := f.run(m, "listing", `{}`, runner.RunOptions{}); res.Beside != nil {
		t.Errorf("listing has beside %s", res.Beside)
	}
}
