package gateway

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The streamable HTTP transport (docs/gateway.md "Streamable HTTP").
const (
	// TokenFile is the bearer token's file under <home>/serve.
	TokenFile = "token"
	// HTTPPath is the endpoint's path.
	HTTPPath = "/mcp"
	// httpSessionIdle ends an HTTP session idle this long.
	httpSessionIdle = 30 * time.Minute
	// maxTokenFile bounds the token file read, in bytes.
	maxTokenFile = 4096
)

// LoopbackAddr checks that addr ("HOST:PORT") is a loopback address:
// 127.0.0.0/8, ::1 or localhost. Anything else is an error: the gateway
// runs the home's modules for whoever can reach it.
func LoopbackAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want 127.0.0.1:PORT (%v)", addr, err)
	}
	if port == "" {
		return fmt.Errorf("--http %q: no port", addr)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--http %q: only a loopback address (127.0.0.1, ::1, localhost) is served", addr)
}

// Token is the bearer token kept in dir/TokenFile (<home>/serve/token),
// made (32 random bytes, hex, mode 0600) when absent or when rotate. A
// token file others may read or write is refused.
func Token(dir string, rotate bool) (string, error) {
	path := filepath.Join(dir, TokenFile)
	if !rotate {
		f, err := os.Open(path)
		if err == nil {
			defer f.Close()
			st, err := f.Stat()
			if err != nil {
				return "", err
			}
			if st.Mode().Perm()&0o077 != 0 {
				return "", fmt.Errorf("%s is mode %v: others may read it; chmod 600 it or --rotate-token", path, st.Mode().Perm())
			}
			b := make([]byte, maxTokenFile)
			n, _ := readFull(f, b)
			if t := strings.TrimSpace(string(b[:n])); len(t) >= 32 {
				return t, nil
			}
			return "", fmt.Errorf("%s holds no token (at least 32 characters); --rotate-token makes one", path)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	t := hex.EncodeToString(b[:])
	tmp, err := os.CreateTemp(dir, ".token-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(t + "\n"); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	return t, os.Rename(tmp.Name(), path)
}

// guard admits a request only with the bearer token, a Host naming the
// loopback listener, and no Origin or a loopback one (DNS rebinding: a
// web page's request carries its own name in Host or Origin).
func guard(token string, port string, next http.Handler) http.Handler {
	hosts := map[string]bool{"127.0.0.1:" + port: true, "localhost:" + port: true, "[::1]:" + port: true}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[strings.ToLower(r.Host)] {
			http.Error(w, "forbidden: Host "+fmt.Sprintf("%q", r.Host)+" is not this loopback server", http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !hosts[strings.ToLower(u.Host)] {
				http.Error(w, "forbidden: Origin "+fmt.Sprintf("%q", o)+" is not this loopback server", http.StatusForbidden)
				return
			}
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="modbay"`)
			http.Error(w, "unauthorized: send Authorization: Bearer <the token in <home>/serve/token>", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// RunHTTP serves over streamable HTTP on ln (a loopback listener) at
// HTTPPath, each request checked by guard, until ctx ends; then, as Run,
// every run it started is killed or left as a followed job and recorded.
func (s *Server) RunHTTP(ctx context.Context, ln net.Listener, token string, watch bool) error {
	_, port, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		return err
	}
	s.transport = "http"
	s.Refresh(ctx)
	if watch {
		stop := s.watch(ctx)
		defer stop()
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: httpSessionIdle, PropagateRequestCancellation: true})
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, h)
	hs := &http.Server{Handler: guard(token, port, mux), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err = <-done:
	}
	s.Shutdown()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
