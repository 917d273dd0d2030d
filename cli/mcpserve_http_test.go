package cli

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveHTTP starts `modbay mcp serve --http 127.0.0.1:0` on home and
// returns its endpoint and bearer token.
func serveHTTP(t *testing.T, home string, args ...string) (string, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, append([]string{"--home", home, "mcp", "serve", "--http", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), asModbayEnv+"=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on") {
				line <- sc.Text()
			}
		}
	}()
	var l string
	select {
	case l = <-line:
	case <-time.After(30 * time.Second):
		t.Fatal("serve --http did not say where it listens")
	}
	endpoint := regexp.MustCompile(`http://127\.0\.0\.1:\d+/mcp`).FindString(l)
	tok, err := os.ReadFile(filepath.Join(home, "serve", "token"))
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(home, "serve", "token")); st.Mode().Perm() != 0o600 {
		t.Errorf("token mode %v", st.Mode().Perm())
	}
	return endpoint, strings.TrimSpace(string(tok))
}

type bearer struct{ token, host, origin string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	if b.host != "" {
		r.Host = b.host
	}
	if b.origin != "" {
		r.Header.Set("Origin", b.origin)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func connectHTTP(endpoint string, b bearer) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return mcp.NewClient(&mcp.Implementation{Name: "http client", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: b}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
}

func TestMCPServeHTTP(t *testing.T) {
	home := demo(t)
	endpoint, token := serveHTTP(t, home)
	if endpoint == "" || len(token) < 32 {
		t.Fatalf("endpoint %q token %q", endpoint, token)
	}
	cs, err := connectHTTP(endpoint, bearer{token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if listTools(t, cs)["notes_report"] == nil {
		t.Fatal("no notes_report over HTTP")
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "notes_report", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("call over HTTP: %v %s", err, textOf(res))
	}
	// The same approvals: fetch_url is refused, addressed to the person.
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch_url", Arguments: fetchArgs})
	if err != nil || !strings.Contains(textOf(res), "Approval required") {
		t.Errorf("approval over HTTP: %v %s", err, textOf(res))
	}

	for name, b := range map[string]bearer{
		"no token":       {},
		"wrong token":    {token: strings.Repeat("0", 64)},
		"foreign Host":   {token: token, host: "evil.example:80"},
		"foreign Origin": {token: token, origin: "http://evil.example"},
	} {
		if cs, err := connectHTTP(endpoint, b); err == nil {
			cs.Close()
			t.Errorf("%s: connected", name)
		}
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := (&http.Client{Transport: b}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := http.StatusForbidden
		if b.token != token {
			want = http.StatusUnauthorized
		}
		if resp.StatusCode != want {
			t.Errorf("%s: status %d, want %d", name, resp.StatusCode, want)
		}
	}
}

func TestMCPServeHTTPLoopbackOnly(t *testing.T) {
	home := demo(t)
	code, _, stderr := run(t, "--home", home, "mcp", "serve", "--http", "0.0.0.0:8123")
	if code != ExitUsage || !strings.Contains(stderr, "only a loopback address") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
