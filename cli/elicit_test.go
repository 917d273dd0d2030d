package cli

import (
	"bytes"
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

// shoutIn is the ask tool's input (none to speak of).
type shoutIn struct{}

// askingServer is a remote MCP server whose "ask" tool asks the person
// whether to shout (elicitation) and answers with what it got; its home's
// config.yaml names it "asker".
func askingServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "1.0.0"}, nil)
	closed := false
	sdk.AddTool(s, &sdk.Tool{Name: "ask", Description: "Asks whether to shout.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closed}},
		func(ctx context.Context, req *sdk.CallToolRequest, _ shoutIn) (*sdk.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Shout?\x1b[31m", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"shout": map[string]any{"type": "boolean", "title": "Shout"}}, "required": []string{"shout"}}})
			if err != nil {
				return nil, nil, err
			}
			out := "hello (" + res.Action + ")"
			if res.Action == "accept" && res.Content["shout"] == true {
				out = strings.ToUpper(out)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out}}}, nil, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	home := t.TempDir()
	cfg := "mcp_servers:\n  asker:\n    url: " + ts.URL + "/mcp\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// TestInvokeElicitation: `modbay invoke` of an MCP tool that asks the
// person declines without a terminal and says so on stderr;
// --elicit-input answers accept with its value, and a value that breaks
// the question's schema is answered cancel.
func TestInvokeElicitation(t *testing.T) {
	home := askingServer(t)
	for _, tc := range []struct {
		name    string
		args    []string
		said    string
		stderrs []string
	}{
		{"pipe declines", nil, "hello (decline)", []string{"asker asks mid-call: Shout?", "declined: no terminal to ask on (pass --elicit-input JSON to answer it)"}},
		{"accept", []string{"--elicit-input", `{"shout":true}`}, "HELLO (ACCEPT)", []string{"answered accept with --elicit-input"}},
		{"does not match", []string{"--elicit-input", `{"shout":"loud"}`}, "hello (cancel)", []string{"--elicit-input does not match the question's schema", "answered cancel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--home", home, "invoke", "asker", "ask", "--json"}, tc.args...)
			code, out, stderr := run(t, args...)
			if code != ExitOK {
				t.Fatalf("exit %d; stdout %s stderr %s", code, out, stderr)
			}
			if strings.Contains(stderr, "\x1b") {
				t.Errorf("the server's escape reached stderr: %q", stderr)
			}
			for _, s := range tc.stderrs {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			var res struct {
				Artifacts []struct {
					Staged string `json:"staged"`
				} `json:"artifacts"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Artifacts) != 1 {
				t.Fatalf("stdout %s (%v)", out, err)
			}
			if b, err := os.ReadFile(res.Artifacts[0].Staged); err != nil || string(b) != tc.said {
				t.Fatalf("the tool said %q (%v), want %q", b, err, tc.said)
			}
		})
	}
	if code, _, stderr := run(t, "--home", home, "invoke", "asker", "ask", "--elicit-input", "@-"); code != ExitUsage || !strings.Contains(stderr, "@- is not accepted") {
		t.Fatalf("--elicit-input @-: exit %d, stderr %s", code, stderr)
	}
}

// TestElicitPrompts: on a terminal the question is asked in plain prompts
// (accept, then each field; a line that is not the field's type is asked
// again), and decline and cancel are answers too.
func TestElicitPrompts(t *testing.T) {
	sch := json.RawMessage(`{"type":"object","properties":{"branch":{"type":"string","description":"Which one."},` +
		`"replicas":{"type":"integer","minimum":1},"env":{"enum":["prod","staging"]},"dry":{"type":"boolean"}},"required":["branch","env"]}`)
	for _, tc := range []struct {
		name, typed string
		action      runner.ElicitAction
		content     string
		stderrs     []string
	}{
		{"accept", "x\na\nmain\ntwo\n3\nqa\nstaging\n\n", runner.ElicitAccept, `{"branch":"main","replicas":3,"env":"staging"}`,
			[]string{"answer? [a]ccept, [d]ecline, [c]ancel: ", "branch: Which one. [string]: ", "replicas [integer, empty leaves it out]: ",
				"not a integer", "env [choice: prod, staging]: ", "not a choice", "dry [boolean y/n, empty leaves it out]: "}},
		{"asked again", "a\nmain\n0\nprod\ny\nmain\n2\nprod\nn\n", runner.ElicitAccept, `{"branch":"main","replicas":2,"env":"prod","dry":false}`,
			[]string{"does not match the question's schema (/replicas: "}},
		{"decline", "d\n", runner.ElicitDecline, "", nil},
		{"cancel", "cancel\n", runner.ElicitCancel, "", nil},
		{"end of input", "", runner.ElicitCancel, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errb bytes.Buffer
			a := &elicitAsker{in: strings.NewReader(tc.typed), errOut: &errb, terminal: true, from: "asker"}
			ans, _ := a.ask(context.Background(), runner.Elicitation{Message: "Deploy?", Schema: sch})
			if ans.Action != tc.action || string(ans.Content) != tc.content {
				t.Fatalf("answer %s %s, want %s %s; stderr:\n%s", ans.Action, ans.Content, tc.action, tc.content, errb.String())
			}
			for _, s := range tc.stderrs {
				if !strings.Contains(errb.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errb.String())
				}
			}
		})
	}
}
