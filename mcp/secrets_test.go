package mcp

import (
	"os"
	"strings"
	"sync"
	"testing"

	"modbay/runner"
)

// TestResourceLinkEchoMasked: a tool that echoes its writeOnly argument
// into a text block, a resource link's uri, name, title and description, a progress
// message and a log line has it masked in all of them: the result, the
// text as staged, the link artifact's title and its staged JSON, and the
// live events.
func TestResourceLinkEchoMasked(t *testing.T) {
	f, m, _ := surfaceFixture(t)
	const key = "sk-live-4242&<x>"
	var mu sync.Mutex
	var events []runner.Event
	res := f.run(m, "leak", `{"api_key":"`+key+`"}`, runner.RunOptions{Events: func(ev runner.Event) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}})
	if !res.OK() || len(res.Artifacts) != 2 {
		t.Fatalf("leak: %s %+v, %d artifacts", res.Code(), res.Host, len(res.Artifacts))
	}
	const label = "‹masked: writeOnly /api_key›"
	if b, err := os.ReadFile(res.Artifacts[0].Staged); err != nil || string(b) != "said "+label {
		t.Errorf("the text block as staged: %q %v", b, err)
	}
	a := res.Artifacts[1]
	if a.Title != "t-"+label {
		t.Errorf("link title %q", a.Title)
	}
	b, err := os.ReadFile(a.Staged)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"uri":"test://leak/` + label, `"name":"n-` + label, `"title":"t-` + label, `"description":"d-` + label} {
		if !strings.Contains(string(b), field) {
			t.Errorf("the staged link lacks %s:\n%s", field, b)
		}
	}
	if strings.Contains(string(b)+string(res.Envelope.Result)+string(res.Stdout), "sk-live-4242") {
		t.Errorf("the secret reaches the link or the result:\n%s\n%s", b, res.Envelope.Result)
	}
	mu.Lock()
	defer mu.Unlock()
	var said []string
	for _, ev := range events {
		if ev.Progress != nil {
			said = append(said, ev.Progress.Message)
		}
		if ev.Log != nil {
			said = append(said, ev.Log.Text)
		}
		said = append(said, string(ev.Stderr))
	}
	all := strings.Join(said, "\n")
	if strings.Contains(all, "sk-live-4242") || !strings.Contains(all, "logged "+label) {
		t.Errorf("live events:\n%s", all)
	}
}
