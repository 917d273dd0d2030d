package examples

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"modbay/modproto"
)

// Schema and artifact kind ids of the fetch example.
const (
	fetchURLRequest = "fetch.url.request/v1"
	fetchURLResult  = "fetch.url.result/v1"
	// kindFetchBody is the fetched response body, as served.
	kindFetchBody = "fetch.body/v1"
)

// Defaults and limits of fetch.url (mirrored in its request schema).
const (
	// fetchDefaultMaxBytes is the default body ceiling: 1 MiB.
	fetchDefaultMaxBytes = 1 << 20
	// fetchMaxBytesLimit bounds max_bytes: 64 MiB is plenty for a demo and
	// keeps a careless input from filling the disk.
	fetchMaxBytesLimit = 64 << 20
	// fetchMaxURLLen bounds the url field, as browsers and servers do.
	fetchMaxURLLen = 8192
	// fetchMaxRedirects bounds redirects followed, as net/http's default.
	fetchMaxRedirects = 10
	// fetchDir is where bodies go, under the workspace.
	fetchDir = "fetch"
	// providerHTTP is the provider of fetch.url: whatever server the URL
	// names, reached over HTTP.
	providerHTTP = "http"
	// fetchUserAgent identifies the example to servers.
	fetchUserAgent = "modbay-example-fetch/" + exampleVersion
)

// fetchModule declares the "Web fetch" example.
func fetchModule() *module {
	return &module{
		id:   "fetch",
		name: "Web fetch",
		caps: []*capability{{
			decl: modproto.Capability{
				ID:              "fetch.url",
				Title:           "Fetch a URL",
				Summary:         "Download one http(s) URL into the workspace and report its status, media type and size.",
				RequestSchema:   fetchURLRequest,
				ResultSchema:    fetchURLResult,
				ArtifactSchemas: []string{kindFetchBody},
				Effects:         modproto.Effects{Network: true, Provider: providerHTTP},
				Skills:          []string{"web-fetch"},
			},
			run: runFetch,
		}},
		requestSchemas: map[string]string{
			fetchURLRequest: `{
				"type": "object",
				"title": "Fetch a URL",
				"properties": {
					"url": {"type": "string", "format": "uri", "title": "URL", "maxLength": 8192,
						"description": "An http or https URL."},
					"max_bytes": {"type": "integer", "title": "Max bytes", "minimum": 1, "maximum": 67108864, "default": 1048576,
						"description": "Refuse a body larger than this many bytes."}
				},
				"required": ["url"],
				"additionalProperties": false
			}`,
		},
		resultSchemas: map[string]string{
			fetchURLResult: `{
				"type": "object",
				"properties": {
					"status": {"type": "integer", "description": "HTTP status code."},
					"media_type": {"type": "string", "description": "Response media type, parameters dropped."},
					"bytes": {"type": "integer", "description": "Body size in bytes."},
					"url": {"type": "string", "description": "The final URL, after redirects."},
					"path": {"type": "string", "description": "Workspace-relative path of the body."}
				},
				"required": ["status", "media_type", "bytes", "url", "path"]
			}`,
		},
		artifactSchemas: map[string]string{
			kindFetchBody: `{
				"type": "object",
				"description": "The response body, byte for byte; its media type is the server's Content-Type (sniffed when absent).",
				"properties": {"media_type": {"type": "string"}}
			}`,
		},
		skills: []bundleDoc{{
			id: "web-fetch", title: "Fetching web pages",
			summary: "How fetch.url is approved, what it stores, and how to read its errors.",
			path:    "skills/web-fetch/SKILL.md",
		}},
		overlays: []bundleDoc{{
			id: "fetch-agent", title: "Web fetch: agent guidance", path: "agents/fetch.md",
		}},
		permissions: modproto.Permissions{
			FilesystemWrite: []string{"workspace"},
			Network:         []string{"*"},
		},
	}
}

// runFetch is fetch.url: GET the URL (no proxy; the run's deadline bounds
// it) when the host granted network access to its host, write the body to
// fetch/<run>/body.<ext> in the workspace, and report it as a fetch.body/v1
// artifact. The cost is unknown, so both costs stay null. Errors:
// permission_denied without a matching network grant (details {required:
// "network"}); provider_failure for a non-2xx status (retryable for 5xx
// and 429) or a failed connection (retryable); timeout; a body over
// max_bytes is provider_failure, not retryable.
func runFetch(c *call) (any, error) {
	in, err := parseInput(c.req.Input, fetchURLRequest, []string{"url", "max_bytes"})
	if err != nil {
		return nil, err
	}
	rawURL := in.str("url", "", true)
	maxBytes := in.integer("max_bytes", fetchDefaultMaxBytes, 1, fetchMaxBytesLimit)
	if err := in.check(); err != nil {
		return nil, err
	}
	u, err := parseFetchURL(rawURL)
	if err != nil {
		return nil, err
	}
	if len(c.req.Grants.Network) == 0 {
		return nil, newError(modproto.CodePermissionDenied, map[string]any{"required": "network", "host": u.Hostname()},
			"fetch.url needs network access, and the host granted none for this call")
	}
	if !networkGranted(c.req.Grants.Network, u.Hostname()) {
		return nil, newError(modproto.CodePermissionDenied, map[string]any{"required": "network", "host": u.Hostname(), "granted": c.req.Grants.Network},
			"network access to %q was not granted (granted: %q)", u.Hostname(), c.req.Grants.Network)
	}
	if _, err := c.root("workspace", true); err != nil {
		return nil, err
	}

	client := fetchClient(c.req.Grants.Network)
	req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, invalidField(fetchURLRequest, "url", nil, "cannot request %q: %v", rawURL, err)
	}
	req.Header.Set("User-Agent", fetchUserAgent)
	c.progress("connecting to %s", u.Host)
	c.exec.Network = true
	started := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return nil, fetchError(c.ctx, u, err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL.String()
	c.progress("%s from %s", resp.Status, final)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := newError(modproto.CodeProviderFailure, map[string]any{"status": resp.StatusCode, "url": final},
			"%s answered %s", u.Host, resp.Status)
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			e.retry()
		}
		return nil, e
	}
	if resp.ContentLength > int64(maxBytes) {
		return nil, tooLarge(final, maxBytes, resp.ContentLength)
	}
	c.progress("reading the body (up to %s)", humanBytes(int64(maxBytes)))
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(maxBytes)+1))
	if err != nil {
		return nil, fetchError(c.ctx, u, err)
	}
	if len(body) > maxBytes {
		return nil, tooLarge(final, maxBytes, -1)
	}
	mediaType := responseMediaType(resp.Header.Get("Content-Type"), body)
	rel := path.Join(fetchDir, c.runSuffix(), "body."+extensionFor(mediaType))
	c.progress("received %s in %s; writing %s", humanBytes(int64(len(body))), time.Since(started).Round(time.Millisecond), rel)
	if err := c.writeArtifact(artifactFile{
		id: "body", kind: kindFetchBody, root: "workspace", rel: rel, mediaType: mediaType,
		title: truncateRunes(final, 120), data: body,
	}); err != nil {
		return nil, err
	}
	return map[string]any{"status": resp.StatusCode, "media_type": mediaType, "bytes": len(body), "url": final, "path": rel}, nil
}

// parseFetchURL checks the url field: absolute http or https with a host.
func parseFetchURL(raw string) (*url.URL, error) {
	if len(raw) > fetchMaxURLLen {
		return nil, invalidField(fetchURLRequest, "url", map[string]any{"maxLength": fetchMaxURLLen}, "url is longer than %d bytes", fetchMaxURLLen)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, invalidField(fetchURLRequest, "url", nil, "url %q does not parse: %v", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, invalidField(fetchURLRequest, "url", map[string]any{"scheme": u.Scheme}, "url must be http or https (got %q)", raw)
	}
	if u.Hostname() == "" {
		return nil, invalidField(fetchURLRequest, "url", nil, "url %q names no host", raw)
	}
	u.Fragment = ""
	return u, nil
}

// networkGranted reports whether the network grants allow host: "*" allows
// every host, "*.example.com" the subdomains of example.com, and any other
// entry exactly that host (case-insensitive).
func networkGranted(grants []string, host string) bool {
	host = strings.ToLower(host)
	for _, g := range grants {
		g = strings.ToLower(strings.TrimSpace(g))
		switch {
		case g == "*" || g == host:
			return true
		case strings.HasPrefix(g, "*.") && strings.HasSuffix(host, g[1:]):
			return true
		}
	}
	return false
}

// fetchClient is an HTTP client that never uses a proxy (the host passes
// no environment, and a module must not pick one up by accident), follows
// at most fetchMaxRedirects redirects, and only to granted hosts. The
// request's context carries the run's deadline.
func fetchClient(grants []string) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	return &http.Client{
		Transport: t,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= fetchMaxRedirects {
				return fmt.Errorf("stopped after %d redirects", fetchMaxRedirects)
			}
			if !networkGranted(grants, req.URL.Hostname()) {
				return &redirectDenied{host: req.URL.Hostname()}
			}
			return nil
		},
	}
}

// redirectDenied is a redirect to a host the grants do not cover.
type redirectDenied struct{ host string }

// Error implements error.
func (e *redirectDenied) Error() string { return "redirect to ungranted host " + e.host }

// fetchError classifies a failed request: the run's deadline is timeout
// (retryable), a cancelled run is cancelled, a redirect to an ungranted
// host is permission_denied, anything else (refused connection, DNS, TLS,
// reset) is provider_failure (retryable).
func fetchError(ctx context.Context, u *url.URL, err error) error {
	var rd *redirectDenied
	var ne net.Error
	switch {
	case errors.As(err, &rd):
		return newError(modproto.CodePermissionDenied, map[string]any{"required": "network", "host": rd.host},
			"%s redirected to %q, which was not granted", u.Host, rd.host)
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &ne) && ne.Timeout():
		return newError(modproto.CodeTimeout, map[string]any{"url": u.String()}, "%s did not answer in time: %v", u.Host, err).retry()
	default:
		return newError(modproto.CodeProviderFailure, map[string]any{"url": u.String()}, "fetching %s failed: %v", u.String(), err).retry()
	}
}

// tooLarge is the error for a body over max_bytes; size < 0 means the
// server did not say.
func tooLarge(u string, maxBytes int, size int64) error {
	d := map[string]any{"url": u, "max_bytes": maxBytes, "field": "max_bytes"}
	if size >= 0 {
		d["content_length"] = size
	}
	return newError(modproto.CodeProviderFailure, d, "the body is larger than max_bytes (%d); raise max_bytes to fetch it", maxBytes)
}

// responseMediaType is the response's media type without parameters,
// lower-cased; sniffed from the body when the header is absent or broken.
func responseMediaType(header string, body []byte) string {
	if mt, _, err := mime.ParseMediaType(header); err == nil && mt != "" {
		return strings.ToLower(mt)
	}
	mt, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	return mt
}

// fetchExtensions maps media types to file extensions. It is fixed rather
// than mime.ExtensionsByType, whose answers depend on the machine's
// mime.types files.
var fetchExtensions = map[string]string{
	"text/html": "html", "application/xhtml+xml": "html", "text/plain": "txt", "text/markdown": "md",
	"text/csv": "csv", "text/css": "css", "text/javascript": "js", "application/javascript": "js",
	"application/json": "json", "application/xml": "xml", "text/xml": "xml", "application/pdf": "pdf",
	"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp", "image/svg+xml": "svg",
	"audio/mpeg": "mp3", "audio/ogg": "ogg", "audio/wav": "wav", "video/mp4": "mp4", "video/webm": "webm",
	"application/zip": "zip", "application/gzip": "gz",
}

// extensionFor picks the body file's extension: from fetchExtensions, else
// "json" for any +json type, else "bin".
func extensionFor(mediaType string) string {
	if ext, ok := fetchExtensions[mediaType]; ok {
		return ext
	}
	if strings.HasSuffix(mediaType, "+json") {
		return "json"
	}
	return "bin"
}

// truncateRunes shortens s to at most n runes, ending in "…" when cut.
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
