package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"modbay/config"
	"modbay/internal/crash"
	"modbay/render"
)

// authSubdir holds, under the home, one token file per signed-in server
// (<home>/auth/mcp/<id>.json, mode 0600, the folder 0700).
const authSubdir = "auth/mcp"

// maxTokenFile bounds a token file read back, in bytes.
const maxTokenFile = 64 << 10

// LoginTimeout bounds a sign-in: the person has this long to sign in in
// the browser (or paste the redirect URL back).
const LoginTimeout = 5 * time.Minute

// storedToken is a token file: the OAuth client and endpoints the token
// was issued through (to refresh it) and the token, for the server URL
// it was issued for.
type storedToken struct {
	Server       string        `json:"server"`
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	AuthURL      string        `json:"auth_url"`
	TokenURL     string        `json:"token_url"`
	AuthStyle    int           `json:"auth_style,omitempty"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

// tokenPath is server id's token file under home.
func tokenPath(home, id string) string {
	return filepath.Join(home, filepath.FromSlash(authSubdir), id+".json")
}

// SignedIn reports whether home holds a token for server id.
func SignedIn(home, id string) bool {
	_, err := os.Stat(tokenPath(home, id))
	return err == nil
}

// loadToken reads server id's token file, nil when there is none, it is
// not one of ours, or it was issued for another URL than server.
func loadToken(home, id, server string) *storedToken {
	f, err := os.Open(tokenPath(home, id))
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil || len(b) > maxTokenFile {
		return nil
	}
	var st storedToken
	if json.Unmarshal(b, &st) != nil || st.Token == nil || st.Server != server || st.TokenURL == "" {
		return nil
	}
	return &st
}

// saveToken writes st as server id's token file: 0600 in a 0700 folder,
// written whole to a temporary file and renamed.
func saveToken(home, id string, st *storedToken) error {
	p := tokenPath(home, id)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+id+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

// Logout removes server id's token from home; false when there was none.
func Logout(home, id string) (bool, error) {
	err := os.Remove(tokenPath(home, id))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// oauthConfig is the oauth2 configuration st was issued through.
func (st *storedToken) oauthConfig() *oauth2.Config {
	return &oauth2.Config{ClientID: st.ClientID, ClientSecret: st.ClientSecret, Scopes: st.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: st.AuthURL, TokenURL: st.TokenURL, AuthStyle: oauth2.AuthStyle(st.AuthStyle)}}
}

// savingSource is a token source that refreshes through its inner source
// and writes each new token back to the token file.
type savingSource struct {
	mu    sync.Mutex
	inner oauth2.TokenSource
	st    storedToken
	save  func(*storedToken) error
}

// Token implements oauth2.TokenSource.
func (s *savingSource) Token() (*oauth2.Token, error) {
	t, err := s.inner.Token()
	if err != nil {
		return nil, fmt.Errorf("refreshing the OAuth token failed (sign in again: modbay mcp login): %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Token == nil || t.AccessToken != s.st.Token.AccessToken {
		s.st.Token = t
		st := s.st
		_ = s.save(&st)
	}
	return t, nil
}

// storedSource is server id's token source from its token file under
// home (refreshed and written back as it expires), nil when not signed in.
func storedSource(home, id, server string) oauth2.TokenSource {
	st := loadToken(home, id, server)
	if st == nil {
		return nil
	}
	ctx := context.Background()
	return &savingSource{inner: st.oauthConfig().TokenSource(ctx, st.Token), st: *st,
		save: func(st *storedToken) error { return saveToken(home, id, st) }}
}

// LoginOptions say how a sign-in reaches the person.
type LoginOptions struct {
	// Out is where the authorization URL and notes are written.
	Out io.Writer
	// Open, when set, opens the authorization URL in a browser (a local
	// display); otherwise the URL is only printed.
	Open func(url string) error
	// Paste, when set, reads the redirect URL the person pastes back (over
	// SSH the loopback redirect cannot reach this machine); the loopback
	// listener answers too, whichever comes first.
	Paste func(ctx context.Context) (string, error)
}

// Login signs in to remote server id (srv, its url) with OAuth 2.1's
// authorization code flow through the SDK's handler (PKCE, dynamic client
// registration, the server's protected resource metadata): a loopback
// redirect on 127.0.0.1, or the redirect URL pasted back. The token is
// stored under home (tokenPath, 0600), refreshed when it expires, never
// printed. lookup expands ${NAME} in the url and headers.
func Login(ctx context.Context, home, id string, srv config.MCPServer, lookup func(string) (string, bool), o LoginOptions) error {
	if srv.Transport() != "http" {
		return fmt.Errorf("%s is not a remote server (url): OAuth sign-in is for those", id)
	}
	if lookup == nil {
		lookup = config.HostLookup
	}
	endpoint, err := expand(srv.URL, lookup)
	if err != nil {
		return fmt.Errorf("url: %w", err)
	}
	hdr := http.Header{}
	for k, v := range srv.Headers {
		ev, err := expand(v, lookup)
		if err != nil {
			return fmt.Errorf("header %s: %w", k, err)
		}
		hdr.Set(k, ev)
	}
	ctx, cancel := context.WithTimeout(ctx, LoginTimeout)
	defer cancel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("a loopback port for the redirect: %w", err)
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"
	codes := make(chan *url.URL, 1)
	srvHTTP := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		select {
		case codes <- r.URL:
		default:
		}
		io.WriteString(w, "modbay: signed in. You may close this tab.\n")
	})}
	crash.Go(func() { _ = srvHTTP.Serve(ln) })
	defer srvHTTP.Close()

	var saved bool
	fetch := func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		au, err := url.Parse(args.URL)
		if err != nil || !(au.Scheme == "https" || au.Scheme == "http" && isLoopback(au.Hostname())) {
			return nil, fmt.Errorf("the authorization server's sign-in URL is not https: %s", render.SanitizeLine(cutRunes(args.URL, 200)))
		}
		fmt.Fprintf(o.Out, "Sign in to %s in your browser:\n\n  %s\n\n", render.SanitizeLine(id), render.SanitizeLine(args.URL))
		if o.Open != nil {
			if err := o.Open(args.URL); err != nil {
				fmt.Fprintf(o.Out, "(could not open a browser: %v; open the URL yourself)\n", err)
			}
		}
		pasted := make(chan *url.URL, 1)
		if o.Paste != nil {
			fmt.Fprintln(o.Out, "Then, if the browser cannot reach this machine, paste the URL it was sent to (http://127.0.0.1…) here:")
			crash.Go(func() {
				line, err := o.Paste(ctx)
				if err != nil {
					return
				}
				if u, err := url.Parse(line); err == nil {
					pasted <- u
				}
			})
		}
		var u *url.URL
		select {
		case u = <-codes:
		case u = <-pasted:
		case <-ctx.Done():
			return nil, fmt.Errorf("no sign-in within %s", LoginTimeout)
		}
		q := u.Query()
		if e := q.Get("error"); e != "" {
			return nil, fmt.Errorf("the authorization server refused: %s %s", cutRunes(e, 100), cutRunes(q.Get("error_description"), 300))
		}
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	}
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: clientName, RedirectURIs: []string{redirect}, GrantTypes: []string{"authorization_code", "refresh_token"},
			TokenEndpointAuthMethod: "none"}},
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: fetch,
		RequestRefreshToken:      true,
		NewTokenSource: func(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			st := &storedToken{Server: srv.URL, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, AuthURL: cfg.Endpoint.AuthURL,
				TokenURL: cfg.Endpoint.TokenURL, AuthStyle: int(cfg.Endpoint.AuthStyle), Scopes: cfg.Scopes, Token: tok}
			if err := saveToken(home, id, st); err != nil {
				return nil, fmt.Errorf("storing the token: %w", err)
			}
			saved = true
			return &savingSource{inner: cfg.TokenSource(ctx, tok), st: *st, save: func(st *storedToken) error { return saveToken(home, id, st) }}, nil
		},
	})
	if err != nil {
		return err
	}
	var t sdk.Transport = &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: headerTransport{h: hdr, d: &Driver{}}},
		DisableStandaloneSSE: true, OAuthHandler: h}
	if srv.SSE() {
		// The SDK's SSE transport takes no OAuth handler: the flow runs
		// in its HTTP client instead, the same on either transport.
		t = sessionScoped{&sdk.SSEClientTransport{Endpoint: endpoint, MaxEventSize: maxSSEEvent,
			HTTPClient: &http.Client{Transport: authorizing{inner: headerTransport{h: hdr, d: &Driver{}}, h: h}}}}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: clientVersion}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	cs, err := client.Connect(ctx, t, &sdk.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return fmt.Errorf("sign-in: %w", err)
	}
	defer cs.Close()
	if !saved {
		return errors.New("the server let modbay in without signing in: nothing to store")
	}
	return nil
}

// authorizing sends requests through inner with h's token, and runs h's
// authorization flow (auth.OAuthHandler.Authorize) on a 401 or 403, then
// sends the request once more: what the SDK's streamable transport does
// with its OAuthHandler, for a transport that has none (SSE). A request
// whose body cannot be read again is not resent.
type authorizing struct {
	inner http.RoundTripper
	h     auth.OAuthHandler
}

// RoundTrip implements http.RoundTripper.
func (t authorizing) RoundTrip(r *http.Request) (*http.Response, error) {
	send := func() (*http.Response, error) {
		rr := r.Clone(r.Context())
		if r.GetBody != nil {
			body, err := r.GetBody()
			if err != nil {
				return nil, err
			}
			rr.Body = body
		}
		if ts, err := t.h.TokenSource(r.Context()); err != nil {
			return nil, err
		} else if ts != nil {
			tok, err := ts.Token()
			if err != nil {
				return nil, err
			}
			tok.SetAuthHeader(rr)
		}
		return t.inner.RoundTrip(rr)
	}
	resp, err := send()
	if err != nil || resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden || r.Body != nil && r.GetBody == nil {
		return resp, err
	}
	if err := t.h.Authorize(r.Context(), r, resp); err != nil {
		return nil, err
	}
	return send()
}

// isLoopback reports whether host is a loopback address or localhost.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
