package examples

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"modbay/modproto"
)

// fetchServer serves a small site on 127.0.0.1.
func fetchServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		if r.UserAgent() != fetchUserAgent {
			http.Error(w, "who are you", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>Hi</title><p>hello</p>\n"))
	})
	mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.api+json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no header: sniffed
		_, _ = w.Write([]byte("just some text\n"))
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://elsewhere.invalid/x", http.StatusFound)
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat("x", 5000)))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/boom", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// fetchFixture is a fetch.url request for url with the network granted.
func fetchFixture(t *testing.T, input map[string]any) *fixture {
	f := newFixture(t, "fetch", "fetch.url", input)
	f.req.Grants.Network = []string{"*"}
	return f
}

func TestFetch(t *testing.T) {
	srv := fetchServer(t)
	f := fetchFixture(t, map[string]any{"url": srv.URL + "/moved"})
	r := f.invoke()
	res := result(t, r)
	if res["status"] != 200.0 || res["media_type"] != "text/html" || res["url"] != srv.URL+"/page" {
		t.Errorf("result %v", res)
	}
	body := string(f.artifactData(r.env, "body"))
	if !strings.Contains(body, "<p>hello</p>") || res["bytes"] != float64(len(body)) {
		t.Errorf("body %q", body)
	}
	a := r.env.Execution.Artifacts[0]
	if a.Kind != kindFetchBody || a.MediaType != "text/html" || a.Root != "workspace" || !strings.HasPrefix(a.Path, "fetch/") || !strings.HasSuffix(a.Path, "/body.html") {
		t.Errorf("artifact %+v", a)
	}
	x := r.env.Execution
	if !x.Network || x.Local || x.Provider != providerHTTP || x.EstimatedCost != nil || x.ActualCost != nil {
		t.Errorf("execution %+v: network used, cost unknown (null)", x)
	}
	if strings.Contains(r.stdout, `"actual_cost":0`) || !strings.Contains(r.stdout, `"actual_cost":null`) {
		t.Errorf("unknown cost must be null on the wire: %s", r.stdout)
	}
	if _, warns := modproto.CheckExecutionAgainstDeclared(describe(t, "fetch"), "fetch.url", &x); len(warns) > 0 {
		t.Errorf("declared-effects warnings: %v", warns)
	}
	if !strings.Contains(r.stderr, "200 OK") {
		t.Errorf("stderr %q", r.stderr)
	}
	validateAgainst(t, describe(t, "fetch").ResultSchemas, fetchURLResult, r.env.Result)

	for path, want := range map[string]string{"/data": "body.json", "/plain": "body.txt"} {
		f := fetchFixture(t, map[string]any{"url": srv.URL + path})
		r := f.invoke()
		result(t, r)
		if p := r.env.Execution.Artifacts[0].Path; !strings.HasSuffix(p, "/"+want) {
			t.Errorf("%s: path %s, want %s", path, p, want)
		}
	}
}

func TestFetchGrants(t *testing.T) {
	srv := fetchServer(t)
	f := newFixture(t, "fetch", "fetch.url", map[string]any{"url": srv.URL + "/page"})
	r := f.invoke()
	wantError(t, r, modproto.CodePermissionDenied, "")
	if r.env.Error.Details["required"] != "network" || r.env.Execution.Network {
		t.Errorf("details %v, network %v", r.env.Error.Details, r.env.Execution.Network)
	}
	if r.env.Execution.ActualCost != nil {
		t.Errorf("fetch's cost is unknown: never reported as 0")
	}
	f.req.Grants.Network = []string{"example.com"}
	wantError(t, f.invoke(), modproto.CodePermissionDenied, "")
	f.req.Grants.Network = []string{"127.0.0.1"}
	result(t, f.invoke())

	f = newFixture(t, "fetch", "fetch.url", map[string]any{"url": srv.URL + "/away"})
	f.req.Grants.Network = []string{"127.0.0.1"}
	r = f.invoke()
	wantError(t, r, modproto.CodePermissionDenied, "")
	if r.env.Error.Details["host"] != "elsewhere.invalid" {
		t.Errorf("details %v", r.env.Error.Details)
	}
	for host, want := range map[string]bool{"a.example.com": true, "example.com": false, "EXAMPLE.org": true, "x.org": false} {
		if got := networkGranted([]string{"*.example.com", "example.org"}, host); got != want {
			t.Errorf("networkGranted(%s) = %v", host, got)
		}
	}
}

func TestFetchFailures(t *testing.T) {
	srv := fetchServer(t)
	for _, tc := range []struct {
		name      string
		input     map[string]any
		deadline  int
		code      string
		retryable bool
	}{
		{"503", map[string]any{"url": srv.URL + "/boom"}, 0, modproto.CodeProviderFailure, true},
		{"404", map[string]any{"url": srv.URL + "/missing"}, 0, modproto.CodeProviderFailure, false},
		{"too large", map[string]any{"url": srv.URL + "/big", "max_bytes": 100}, 0, modproto.CodeProviderFailure, false},
		{"refused", map[string]any{"url": "http://127.0.0.1:1/"}, 0, modproto.CodeProviderFailure, true},
		{"deadline", map[string]any{"url": srv.URL + "/slow"}, 300, modproto.CodeTimeout, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fetchFixture(t, tc.input)
			f.req.DeadlineMS = tc.deadline
			r := f.invoke()
			wantError(t, r, tc.code, "")
			if r.env.Error.Retryable != tc.retryable {
				t.Errorf("retryable %v: %+v", r.env.Error.Retryable, r.env.Error)
			}
			if !r.env.Execution.Network || r.env.Execution.ActualCost != nil {
				t.Errorf("execution %+v", r.env.Execution)
			}
		})
	}
	for _, tc := range []struct {
		input map[string]any
		field string
	}{
		{map[string]any{}, "url"},
		{map[string]any{"url": "ftp://example.com/x"}, "url"},
		{map[string]any{"url": "http://"}, "url"},
		{map[string]any{"url": "not a url at all"}, "url"},
		{map[string]any{"url": srv.URL, "max_bytes": 0}, "max_bytes"},
		{map[string]any{"url": srv.URL, "extra": 1}, "extra"},
	} {
		r := fetchFixture(t, tc.input).invoke()
		wantError(t, r, modproto.CodeInvalidRequest, tc.field)
		if r.env.Execution.Network {
			t.Errorf("%v: no network for an invalid request", tc.input)
		}
	}
}
