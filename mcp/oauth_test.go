package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/config"
	"modbay/runner"
)

// authServer is the tests' own OAuth 2.1 authorization server and the
// MCP server it protects, on one httptest server: protected resource
// metadata, authorization server metadata, dynamic client registration,
// the authorization endpoint (PKCE S256 required, a code by redirect),
// the token endpoint (code and refresh grants) and /mcp, which answers
// only a live access token. Access tokens expire at once, so each use
// refreshes.
type authServer struct {
	url string
	mu  sync.Mutex
	// clients are the registered clients' redirect URIs by client id.
	clients map[string][]string
	// codes are the issued codes' PKCE challenges and clients.
	codes map[string][2]string
	// access and refresh are the live tokens.
	access, refresh map[string]bool
	n               int
	// grants counts the token endpoint's grants by type.
	grants map[string]int
}

func newAuthServer(t *testing.T) *authServer {
	t.Helper()
	a := &authServer{clients: map[string][]string{}, codes: map[string][2]string{}, access: map[string]bool{}, refresh: map[string]bool{}, grants: map[string]int{}}
	s := sdk.NewServer(&sdk.Implementation{Name: "guarded", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echoes.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
			return nil, echoOut{Echo: in.Text}, nil
		})
	mcpH := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	sseH := sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return s }, nil)
	mux := http.NewServeMux()
	writeJSON := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	// /mcp is the streamable HTTP endpoint, /sse the same server over
	// HTTP+SSE (its messages are posted to /sse?sessionid=…).
	for path, h := range map[string]http.Handler{"/mcp": mcpH, "/sse": sseH} {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			a.mu.Lock()
			ok := a.access[tok]
			a.mu.Unlock()
			if !ok {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+a.url+`/.well-known/oauth-protected-resource`+path+`"`)
				http.Error(w, "sign in", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
		mux.HandleFunc("/.well-known/oauth-protected-resource"+path, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, map[string]any{"resource": a.url + path, "authorization_servers": []string{a.url}})
		})
	}
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"issuer": a.url, "authorization_endpoint": a.url + "/authorize", "token_endpoint": a.url + "/token",
			"registration_endpoint": a.url + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
			"token_endpoint_auth_methods_supported": []string{"none"}, "scopes_supported": []string{"offline_access"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var md struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		if json.NewDecoder(r.Body).Decode(&md) != nil || len(md.RedirectURIs) == 0 {
			writeJSON(w, 400, map[string]string{"error": "invalid_client_metadata"})
			return
		}
		a.mu.Lock()
		a.n++
		id := fmt.Sprintf("client-%d", a.n)
		a.clients[id] = md.RedirectURIs
		a.mu.Unlock()
		writeJSON(w, 201, map[string]any{"client_id": id, "redirect_uris": md.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		a.mu.Lock()
		defer a.mu.Unlock()
		uris, ok := a.clients[q.Get("client_id")]
		redirect := q.Get("redirect_uri")
		if !ok || !containsString(uris, redirect) || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
			http.Error(w, "bad authorization request", http.StatusBadRequest)
			return
		}
		a.n++
		code := fmt.Sprintf("code-%d", a.n)
		a.codes[code] = [2]string{q.Get("code_challenge"), q.Get("client_id")}
		u, _ := url.Parse(redirect)
		v := url.Values{"code": {code}, "state": {q.Get("state")}}
		u.RawQuery = v.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		grant := r.Form.Get("grant_type")
		switch grant {
		case "authorization_code":
			c, ok := a.codes[r.Form.Get("code")]
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != c[0] || r.Form.Get("client_id") != c[1] {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			delete(a.codes, r.Form.Get("code"))
		case "refresh_token":
			if !a.refresh[r.Form.Get("refresh_token")] {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			delete(a.refresh, r.Form.Get("refresh_token"))
		default:
			writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
			return
		}
		a.grants[grant]++
		a.n++
		at, rt := fmt.Sprintf("access-%d", a.n), fmt.Sprintf("refresh-%d", a.n)
		a.access[at], a.refresh[rt] = true, true
		// expires_in 1: within the oauth2 package's early-expiry window,
		// so the next use refreshes.
		writeJSON(w, 200, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 1, "refresh_token": rt})
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	a.url = ts.URL
	return a
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestOAuthLogin: without a token the server is listed as needing
// sign-in, naming modbay mcp login; Login signs in through the local
// authorization server (dynamic registration, PKCE, the loopback
// redirect followed by a "browser"), stores the token 0600 and never
// prints it; the server is then reached with it, refreshed as it expires
// and written back; logout removes it.
func TestOAuthLogin(t *testing.T) {
	a := newAuthServer(t)
	srv := config.MCPServer{URL: a.url + "/mcp"}
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"guarded": srv})
	if m := f.module("guarded"); m.Status != runner.StatusNeedsSetup || !strings.Contains(m.Descriptor.Requirements[0].Detail, "modbay mcp login guarded") {
		t.Fatalf("before sign-in: %s %s", m.Status, m.Reason)
	}
	f.src.Close()

	var out strings.Builder
	browser := func(u string) error {
		go func() {
			resp, err := http.Get(u) // follows the redirect to the loopback
			if err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	if err := Login(context.Background(), f.home, "guarded", srv, nil, LoginOptions{Out: &out, Open: browser}); err != nil {
		t.Fatalf("login: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), a.url+"/authorize?") || strings.Contains(out.String(), "access-") || strings.Contains(out.String(), "refresh-") {
		t.Errorf("login printed %q: want the authorization URL and no token", out.String())
	}
	p := tokenPath(f.home, "guarded")
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v, want 0600", err, fi)
	}
	if di, _ := os.Stat(filepath.Dir(p)); di.Mode().Perm() != 0o700 {
		t.Errorf("token folder mode %v, want 0700", di.Mode().Perm())
	}
	before, _ := os.ReadFile(p)

	f2 := newFixtureAt(t, f.home, config.SandboxOff, map[string]config.MCPServer{"guarded": srv})
	m := f2.module("guarded")
	if m.Status != runner.StatusReady {
		t.Fatalf("after sign-in: %s %s", m.Status, m.Reason)
	}
	res := f2.run(m, "echo", `{"text":"signed in"}`, runner.RunOptions{})
	if !res.OK() || string(res.Envelope.Result) != `{"echo":"signed in"}` {
		t.Fatalf("echo: %+v %+v", res.Host, res.Envelope)
	}
	a.mu.Lock()
	grants := a.grants["refresh_token"]
	a.mu.Unlock()
	after, _ := os.ReadFile(p)
	if grants == 0 || string(after) == string(before) {
		t.Errorf("%d refresh grants, token file changed %v: want the expired token refreshed and written back", grants, string(after) != string(before))
	}
	f2.src.Close()

	if ok, err := Logout(f.home, "guarded"); !ok || err != nil {
		t.Fatalf("logout: %v %v", ok, err)
	}
	if SignedIn(f.home, "guarded") {
		t.Error("still signed in after logout")
	}
}

// TestOAuthLoginPasted: over SSH the browser cannot reach the loopback
// redirect; the person pastes the URL it was sent to, and that signs in.
func TestOAuthLoginPasted(t *testing.T) {
	a := newAuthServer(t)
	srv := config.MCPServer{URL: a.url + "/mcp"}
	home := t.TempDir()
	urls := make(chan string, 1)
	paste := func(ctx context.Context) (string, error) {
		u := <-urls
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Get(u)
		if err != nil {
			return "", err
		}
		resp.Body.Close()
		return resp.Header.Get("Location"), nil
	}
	var out strings.Builder
	err := Login(context.Background(), home, "guarded", srv, nil, LoginOptions{Out: &out, Paste: paste,
		Open: func(u string) error { urls <- u; return nil }})
	if err != nil {
		t.Fatalf("login: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "paste the URL") || !SignedIn(home, "guarded") {
		t.Errorf("pasted sign-in: %q, signed in %v", out.String(), SignedIn(home, "guarded"))
	}
}

// TestOAuthLoginSSE: a server on the older HTTP+SSE transport signs in
// the same way (the flow runs in the HTTP client, as the SDK's SSE
// transport takes no OAuth handler), and is then reached with the stored
// token, refreshed as it expires.
func TestOAuthLoginSSE(t *testing.T) {
	a := newAuthServer(t)
	srv := config.MCPServer{URL: a.url + "/sse", Type: "sse"}
	f := newFixture(t, config.SandboxOff, map[string]config.MCPServer{"legacy": srv})
	if m := f.module("legacy"); m.Status != runner.StatusNeedsSetup || !strings.Contains(m.Descriptor.Requirements[0].Detail, "modbay mcp login legacy") {
		t.Fatalf("before sign-in: %s %s", m.Status, m.Reason)
	}
	f.src.Close()
	browser := func(u string) error {
		go func() {
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
		}()
		return nil
	}
	var out strings.Builder
	if err := Login(context.Background(), f.home, "legacy", srv, nil, LoginOptions{Out: &out, Open: browser}); err != nil {
		t.Fatalf("login: %v\n%s", err, out.String())
	}
	if !SignedIn(f.home, "legacy") || strings.Contains(out.String(), "access-") {
		t.Fatalf("signed in %v; printed %q", SignedIn(f.home, "legacy"), out.String())
	}
	f2 := newFixtureAt(t, f.home, config.SandboxOff, map[string]config.MCPServer{"legacy": srv})
	m := f2.module("legacy")
	if m.Status != runner.StatusReady {
		t.Fatalf("after sign-in: %s %s", m.Status, m.Reason)
	}
	res := f2.run(m, "echo", `{"text":"over sse"}`, runner.RunOptions{})
	if !res.OK() || string(res.Envelope.Result) != `{"echo":"over sse"}` {
		t.Fatalf("echo: %+v %+v", res.Host, res.Envelope)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.grants["authorization_code"] != 1 || a.grants["refresh_token"] == 0 {
		t.Errorf("grants %v: want one code and refreshes", a.grants)
	}
}
