package mcp

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"

	"modbay/config"
	"modbay/runner"
)

// staged is every staged artifact of res, concatenated.
func staged(t *testing.T, res *runner.Result) string {
	t.Helper()
	var all strings.Builder
	for _, a := range res.Artifacts {
		b, err := os.ReadFile(a.Staged)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	return all.String()
}

// TestEverythingSurfaceToPerson drives server-everything's tools that ask
// the client: roots/list answered with the entry's roots as file URIs,
// sampling answered by a person (the test) and never a model, a URL
// elicitation shown and accepted.
func TestEverythingSurfaceToPerson(t *testing.T) {
	srv := everythingServer(t)
	f := newFixture(t, config.SandboxAuto, map[string]config.MCPServer{"everything": srv})
	m := f.module("everything")
	if m.Status != runner.StatusReady {
		t.Fatalf("server-everything: %s: %s\n%s", m.Status, m.Reason, m.Stderr)
	}

	// Roots: the entry's one root, as a file URI.
	res := f.run(m, "get-roots-list", `{}`, runner.RunOptions{})
	if !res.OK() {
		t.Fatalf("get-roots-list: %+v %+v", res.Host, res.Envelope)
	}
	var root string
	for p := range srv.Roots {
		root = (&url.URL{Scheme: "file", Path: p}).String()
	}
	if out := staged(t, res); !strings.Contains(out, "(1 total)") || !strings.Contains(out, "URI: "+root) {
		t.Errorf("get-roots-list answered %q, want the one root %s", out, root)
	}

	// Sampling: the person sees the prompt and system prompt and writes
	// the reply; the server gets it as the assistant's text.
	var asked runner.Elicitation
	res = f.run(m, "trigger-sampling-request", `{"prompt":"say hi","maxTokens":20}`, runner.RunOptions{
		Elicit: func(_ context.Context, e runner.Elicitation) (runner.ElicitAnswer, error) {
			asked = e
			return runner.ElicitAnswer{Action: runner.ElicitAccept, Content: json.RawMessage(`{"reply":"hi from a person"}`)}, nil
		},
	})
	if !res.OK() {
		t.Fatalf("trigger-sampling-request: %+v %+v", res.Host, res.Envelope)
	}
	sr := asked.Sampling
	if sr == nil || sr.SystemPrompt != "You are a helpful test server." || len(sr.Messages) != 1 ||
		sr.Messages[0].Role != "user" || !strings.Contains(sr.Messages[0].Text, "say hi") || sr.MaxTokens != 20 {
		t.Errorf("the sampling request as asked: %+v", sr)
	}
	if out := staged(t, res); !strings.Contains(out, "hi from a person") || !strings.Contains(out, samplingModel) {
		t.Errorf("the server's sampling result %q lacks the person's reply", out)
	}

	// Declined, the server is told so (a JSON-RPC error), and no reply.
	res = f.run(m, "trigger-sampling-request", `{"prompt":"say hi"}`, runner.RunOptions{
		Elicit: func(context.Context, runner.Elicitation) (runner.ElicitAnswer, error) {
			return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
		},
	})
	if res.OK() && strings.Contains(staged(t, res), samplingModel) {
		t.Errorf("a declined sampling request was answered: %s", staged(t, res))
	}

	// A URL elicitation: the URL reaches the person, accept goes back.
	asked = runner.Elicitation{}
	res = f.run(m, "trigger-url-elicitation", `{"url":"https://example.org/sign-in","message":"Sign in"}`, runner.RunOptions{
		Elicit: func(_ context.Context, e runner.Elicitation) (runner.ElicitAnswer, error) {
			asked = e
			return runner.ElicitAnswer{Action: runner.ElicitAccept}, nil
		},
	})
	if !res.OK() {
		t.Fatalf("trigger-url-elicitation: %+v %+v", res.Host, res.Envelope)
	}
	if asked.URL != "https://example.org/sign-in" || asked.Message != "Sign in" || asked.Schema != nil {
		t.Errorf("the URL elicitation as asked: %+v", asked)
	}
	if out := staged(t, res); !strings.Contains(out, "accept") {
		t.Errorf("the server's URL elicitation result %q does not say accept", out)
	}

	// The error path: the call fails with -32042 naming a URL to open
	// first; once the person accepts it the call is tried again and the
	// server asks for its own URL.
	var urls []string
	res = f.run(m, "trigger-url-elicitation", `{"url":"https://example.org/pay","errorPath":true}`, runner.RunOptions{
		Elicit: func(_ context.Context, e runner.Elicitation) (runner.ElicitAnswer, error) {
			urls = append(urls, e.URL)
			return runner.ElicitAnswer{Action: runner.ElicitAccept}, nil
		},
	})
	if !res.OK() || len(urls) != 2 || urls[0] != "https://modelcontextprotocol.io" || urls[1] != "https://example.org/pay" {
		t.Fatalf("the error path: %+v, URLs asked %q; want the prerequisite, then the server's own", res.Host, urls)
	}
}
