package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/runner"
)

// samplingServer is a remote MCP server whose "think" tool asks the
// client for a model's reply (sampling, with an escape in its system
// prompt) and whose "visit" tool asks the person to open a URL; each
// answers with what it got. Its home's config.yaml names it "thinker".
func samplingServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "thinker", Version: "1.0.0"}, nil)
	closed := false
	ann := &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closed}
	sdk.AddTool(s, &sdk.Tool{Name: "think", Description: "Asks for a reply.", Annotations: ann},
		func(ctx context.Context, req *sdk.CallToolRequest, _ shoutIn) (*sdk.CallToolResult, any, error) {
			res, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{MaxTokens: 50, SystemPrompt: "Be brief.\x1b[2J",
				ModelPreferences: &sdk.ModelPreferences{Hints: []*sdk.ModelHint{{Name: "claude-sonnet"}}, SpeedPriority: 0.5},
				Messages:         []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "What is 2+2?"}}}})
			out := "no reply"
			if err == nil {
				b, _ := json.Marshal(res)
				out = string(b)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "visit", Description: "Asks to open a URL.", Annotations: ann},
		func(ctx context.Context, req *sdk.CallToolRequest, _ shoutIn) (*sdk.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://auth.example.org/x\u202egpj.exe", ElicitationID: "e1"})
			if err != nil {
				return nil, nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "visit (" + res.Action + ")"}}}, nil, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	home := t.TempDir()
	cfg := "mcp_servers:\n  thinker:\n    url: " + ts.URL + "/mcp\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// said is the one staged artifact of an invoke --json's stdout.
func said(t *testing.T, out string) string {
	t.Helper()
	var res struct {
		Artifacts []struct {
			Staged string `json:"staged"`
		} `json:"artifacts"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Artifacts) != 1 {
		t.Fatalf("stdout %s (%v)", out, err)
	}
	b, err := os.ReadFile(res.Artifacts[0].Staged)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInvokeSampling: a sampling request is shown (sanitized) and, without
// a terminal, declined; --sampling-input answers it as text, @FILE or @-,
// in any of its three shapes, and the server gets the reply as the
// assistant's message from no model.
func TestInvokeSampling(t *testing.T) {
	home := samplingServer(t)
	dir := t.TempDir()
	file, text, blocks := filepath.Join(dir, "reply.json"), filepath.Join(dir, "reply.txt"), filepath.Join(dir, "blocks.json")
	for name, body := range map[string]string{
		file:   `{"role":"assistant","content":{"type":"text","text":"four"}}`,
		text:   "Four.\n\n  Because 2+2=4.\n",
		blocks: `{"role":"assistant","content":[{"type":"text","text":"Four."},{"type":"text","text":"Sure."}]}`,
	} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, stdin, want string
		args              []string
	}{
		{"pipe declines", "", "no reply", nil},
		{"text", "", `"text":"four"`, []string{"--sampling-input", `"four"`}},
		{"file", "", `"text":"four"`, []string{"--sampling-input", "@" + file}},
		{"stdin", `{"reply":"four"}`, `"text":"four"`, []string{"--sampling-input", "@-"}},
		{"text file, lines kept", "", `"text":"Four.\n\n  Because 2+2=4."`, []string{"--sampling-input", "@" + text}},
		{"stdin text", "Four.\nSure.\n", `"text":"Four.\nSure."`, []string{"--sampling-input", "@-"}},
		{"blocks", "", `"text":"Four.\nSure."`, []string{"--sampling-input", "@" + blocks}},
		{"plain flag text", "", `"text":"four"`, []string{"--sampling-input", "four"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--home", home, "invoke", "thinker", "think", "--json"}, tc.args...)
			code, out, stderr := runIn(t, tc.stdin, args...)
			if code != ExitOK {
				t.Fatalf("exit %d; stdout %s stderr %s", code, out, stderr)
			}
			if strings.Contains(stderr, "\x1b") {
				t.Errorf("the server's escape reached stderr: %q", stderr)
			}
			for _, s := range []string{"thinker asks for a model's reply", "system prompt: Be brief.", "models preferred: claude-sonnet", "speed priority: 0.50", "user: What is 2+2?"} {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			got := said(t, out)
			if !strings.Contains(got, tc.want) {
				t.Errorf("the server got %s, want %s", got, tc.want)
			}
			if tc.args != nil && (!strings.Contains(got, `"role":"assistant"`) || !strings.Contains(got, "written by a person")) {
				t.Errorf("the reply %s is not the assistant's from a person", got)
			}
		})
	}
	for in, want := range map[string]string{
		`{"x":1}`:                 "--sampling-input: want the reply",
		"{\n  \"reply\": four\n}": "line 2, column",
		`{"role":"user","content":{"type":"text","text":"x"}}`:            `role "user": a sampling reply is the assistant's`,
		`{"role":"assistant","content":[{"type":"image","data":"AA=="}]}`: `content block 0 is "image"`,
		" \n": "the reply is empty",
	} {
		if code, _, stderr := run(t, "--home", home, "invoke", "thinker", "think", "--sampling-input", in); code != ExitUsage || !strings.Contains(stderr, want) {
			t.Errorf("--sampling-input %q: exit %d, stderr %s; want %q", in, code, stderr, want)
		}
	}
	if code, _, stderr := run(t, "--home", home, "invoke", "thinker", "think", "--input", "@-", "--sampling-input", "@-"); code != ExitUsage || !strings.Contains(stderr, "@- is taken by --input") {
		t.Errorf("--sampling-input @- beside --input @-: exit %d, stderr %s", code, stderr)
	}
}

// TestInvokeURLElicitation: a URL the server asks the person to open is
// printed sanitized with its host, never opened, and declined without a
// terminal; one with a control character is declined unasked.
func TestInvokeURLElicitation(t *testing.T) {
	home := samplingServer(t)
	code, out, stderr := run(t, "--home", home, "invoke", "thinker", "visit", "--json")
	if code != ExitOK {
		t.Fatalf("exit %d; stdout %s stderr %s", code, out, stderr)
	}
	if strings.Contains(stderr, "\u202e") {
		t.Errorf("the server's bidi override reached stderr: %q", stderr)
	}
	for _, s := range []string{"thinker asks you to open a URL mid-call: Sign in", "https://auth.example.org/x", "(host: auth.example.org)", "declined: no terminal"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr)
		}
	}
	if got := said(t, out); got != "visit (decline)" {
		t.Errorf("the server got %q, want a decline", got)
	}
}

// runIn executes modbay with args and stdin (no terminal), returning the
// exit code and output.
func runIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	ios, out, errb := fakeStreams(false)
	ios.In = strings.NewReader(stdin)
	code := execute(context.Background(), args, ios, nil)
	return code, out.String(), errb.String()
}

// TestSamplingTypedLines: on a terminal the reply is every line typed up
// to one holding only ".", kept as typed after the first; an empty first
// line or "." declines; standard input ending ends the reply.
func TestSamplingTypedLines(t *testing.T) {
	for _, tc := range []struct{ typed, action, reply string }{
		{"Four.\n  indented\n\nlast\n.\nignored\n", "accept", "Four.\n  indented\n\nlast"},
		{"one line\n.\n", "accept", "one line"},
		{"no end mark\nsecond", "accept", "no end mark\nsecond"},
		{"\n", "decline", ""},
		{".\n", "decline", ""},
	} {
		var errb strings.Builder
		a := &elicitAsker{in: strings.NewReader(tc.typed), errOut: &errb, terminal: true, from: "asker"}
		ans, err := a.sample(context.Background(), runner.Elicitation{Sampling: &runner.SamplingRequest{}})
		if err != nil || string(ans.Action) != tc.action {
			t.Errorf("typed %q: %+v %v, want %s", tc.typed, ans, err, tc.action)
			continue
		}
		var got struct{ Reply string }
		_ = json.Unmarshal(ans.Content, &got)
		if got.Reply != tc.reply {
			t.Errorf("typed %q: reply %q, want %q", tc.typed, got.Reply, tc.reply)
		}
	}
}
