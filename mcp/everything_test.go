package mcp

// The end-to-end partner: the MCP project's reference server,
// @modelcontextprotocol/server-everything, pinned to EverythingVersion and
// installed by .ci/run into a cache folder, driven through the host as a
// person's config would name it.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"modbay/config"
	"modbay/conform"
	"modbay/runner"
)

// EverythingVersion is the exact version of server-everything the tests
// drive (.ci/run installs the same).
const everythingVersion = "2026.8.31"

// everythingEnv names the npm prefix holding the package; the default is
// the folder .ci/run installs into.
const everythingEnv = "MODBAY_MCP_EVERYTHING"

// everythingServer is the config entry of the installed server-everything
// (node run on its entry point, stdio, no network, the package's folder
// read-only), or a skip (a failure under CI=true) when node or the package
// is absent.
func everythingServer(t *testing.T) config.MCPServer {
	t.Helper()
	miss := func(why string) config.MCPServer {
		if os.Getenv("CI") == "true" {
			t.Fatalf("server-everything: %s (CI installs it: .ci/run)", why)
		}
		t.Skipf("server-everything %s: %s", everythingVersion, why)
		return config.MCPServer{}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return miss("node is not on PATH")
	}
	prefix := os.Getenv(everythingEnv)
	if prefix == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return miss("no home directory to find the cache folder in")
		}
		prefix = filepath.Join(home, ".cache", "modbay-ci", "server-everything")
	}
	pkg := filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "server-everything")
	var meta struct{ Version string }
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil || json.Unmarshal(b, &meta) != nil {
		return miss("not installed under " + prefix + " (set " + everythingEnv + " to an npm prefix holding it)")
	}
	if meta.Version != everythingVersion {
		return miss("installed version is " + meta.Version)
	}
	node, _ = filepath.Abs(node)
	prefix, _ = filepath.EvalSymlinks(prefix)
	return config.MCPServer{
		Command: node,
		Args:    []string{filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"},
		Roots:   map[string]string{prefix: "ro"},
		// node starts it in well under the 10 s default on an idle machine;
		// the tests share a loaded one.
		Limits: config.MCPLimits{InitializeSeconds: 60},
	}
}

func TestServerEverything(t *testing.T) {
	srv := everythingServer(t)
	f := newFixture(t, config.SandboxAuto, map[string]config.MCPServer{"everything": srv})
	m := f.module("everything")
	if m.Status != runner.StatusReady {
		t.Fatalf("server-everything: %s: %s\n%s", m.Status, m.Reason, m.Stderr)
	}
	d := m.Descriptor
	if !strings.Contains(d.Name, "everything") && !strings.Contains(strings.ToLower(d.Name), "everything") {
		t.Errorf("name %q, want the server's implementation name", d.Name)
	}
	// Twelve tools always, the elicitation tools because modbay
	// advertises elicitation.
	if len(d.Capabilities) < 12 {
		t.Fatalf("%d tools listed, want at least 12", len(d.Capabilities))
	}
	cres, prompts, problems := f.src.Driver("everything").Catalog()
	t.Logf("server-everything %s lists %d tools, %d resources, %d prompts", d.Version, len(d.Capabilities), len(cres), len(prompts))
	if len(cres) == 0 || len(prompts) == 0 || len(problems) != 0 {
		t.Errorf("catalog: %d resources, %d prompts, problems %q; want both listed", len(cres), len(prompts), problems)
	}

	// A read-only closed-world tool plans without approval and runs.
	p, err := f.host.Plan(m, "echo", json.RawMessage(`{"message":"hello everything"}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.NeedsApproval() {
		t.Errorf("echo (read-only, closed world) needs approval: %q", p.Approval)
	}
	res := f.run(m, "echo", `{"message":"hello everything"}`, runner.RunOptions{})
	if !res.OK() || len(res.Artifacts) != 1 {
		t.Fatalf("echo: %+v %+v", res.Host, res.Envelope)
	}
	if b, _ := os.ReadFile(res.Artifacts[0].Staged); !strings.Contains(string(b), "hello everything") {
		t.Errorf("echo answered %q", b)
	}

	// An image block is staged as a verified image artifact holding the
	// server's bytes.
	res = f.run(m, "get-tiny-image", `{}`, runner.RunOptions{})
	if !res.OK() {
		t.Fatalf("get-tiny-image: %+v %+v", res.Host, res.Envelope)
	}
	var img *runner.VerifiedArtifact
	for i := range res.Artifacts {
		if res.Artifacts[i].Presentation == "image" {
			img = &res.Artifacts[i]
		}
	}
	if img == nil || img.MediaType != "image/png" {
		t.Fatalf("get-tiny-image artifacts %+v, want an image/png", res.Artifacts)
	}
	b, err := os.ReadFile(img.Staged)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("staged image: %v, %d bytes, want a PNG", err, len(b))
	}
	if want := tinyImage(t, srv); !bytes.Equal(b, want) {
		t.Errorf("staged image is %d bytes, the server's is %d", len(b), len(want))
	}
	if sum := sha256.Sum256(b); img.Digest != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("image digest %q does not match the staged bytes", img.Digest)
	}

	// Progress: a long-running operation reports each step.
	var mu sync.Mutex
	var pcts []float64
	res = f.run(m, "trigger-long-running-operation", `{"duration":0.6,"steps":3}`, runner.RunOptions{
		Events: func(e runner.Event) {
			if e.Progress != nil && e.Progress.Percent != nil {
				mu.Lock()
				pcts = append(pcts, *e.Progress.Percent)
				mu.Unlock()
			}
		},
	})
	if !res.OK() {
		t.Fatalf("long-running operation: %+v %+v", res.Host, res.Envelope)
	}
	mu.Lock()
	if len(pcts) != 3 || pcts[2] != 100 {
		t.Errorf("progress %v, want three steps ending at 100", pcts)
	}
	mu.Unlock()

	// Elicitation: the server's form is answered by the test.
	if d.Capability("trigger-elicitation-request") == nil {
		t.Fatal("trigger-elicitation-request is not listed although modbay advertises elicitation")
	}
	var asked runner.Elicitation
	res = f.run(m, "trigger-elicitation-request", `{}`, runner.RunOptions{
		Elicit: func(_ context.Context, e runner.Elicitation) (runner.ElicitAnswer, error) {
			asked = e
			return runner.ElicitAnswer{Action: runner.ElicitAccept, Content: json.RawMessage(
				`{"name":"Ada Lovelace","check":true,"email":"ada@example.org","integer":7,"untitledSingleSelectEnum":"Joey"}`)}, nil
		},
	})
	if !res.OK() {
		t.Fatalf("elicitation: %+v %+v", res.Host, res.Envelope)
	}
	if !bytes.Contains(asked.Schema, []byte(`"email"`)) {
		t.Errorf("elicitation schema %s lacks the email field", asked.Schema)
	}
	var all strings.Builder
	for _, a := range res.Artifacts {
		b, _ := os.ReadFile(a.Staged)
		all.Write(b)
	}
	if !strings.Contains(all.String(), "Ada Lovelace") || !strings.Contains(all.String(), "accept") {
		t.Errorf("the server's answer does not echo the accepted form: %s", all.String())
	}

	// Sampling, roots and URL elicitation are advertised: the tools that
	// need them are listed (TestEverythingSurfaceToPerson runs them).
	for _, tool := range []string{"trigger-sampling-request", "get-roots-list", "trigger-url-elicitation"} {
		if d.Capability(tool) == nil {
			t.Errorf("%s is not listed although modbay advertises what it needs", tool)
		}
	}
}

// tinyImage is the PNG server-everything's get-tiny-image returns, read
// from its source.
func tinyImage(t *testing.T, srv config.MCPServer) []byte {
	t.Helper()
	js := filepath.Join(filepath.Dir(srv.Args[0]), "tools", "get-tiny-image.js")
	src, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(src), `MCP_TINY_IMAGE = "`)
	data, _, ok2 := strings.Cut(rest, `"`)
	if !ok || !ok2 {
		t.Fatalf("%s: no MCP_TINY_IMAGE", js)
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCheckEverythingByMCPRules: modbay check judges an MCP server by
// MCP's rules (a tool error or a JSON-RPC error rightly refuses bad
// arguments; arguments are always objects), so the conforming reference
// server has no failure.
func TestCheckEverythingByMCPRules(t *testing.T) {
	srv := everythingServer(t)
	f := newFixture(t, config.SandboxAuto, map[string]config.MCPServer{"everything": srv})
	rep, err := conform.Check(f.ctx, f.host, "everything", conform.Options{Yes: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range rep.Items {
		if it.Status == conform.Fail {
			t.Errorf("%s: %s", it.Name, it.Detail)
		}
		if it.Status != conform.Skipped && len(it.Input) > 0 && it.Input[0] != '{' {
			t.Errorf("%s sent arguments %s, not an object", it.Name, it.Input)
		}
	}
	t.Logf("check everything: %d passed, %d warnings, %d skipped", rep.Count(conform.Pass), rep.Count(conform.Warn), rep.Count(conform.Skipped))
}
