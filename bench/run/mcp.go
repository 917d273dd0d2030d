package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The MCP section: listing a 200-tool MCP server and opening
// one tool's form once connected (Go benchmark, budget 200 ms), and the
// whole commands — connect and list, one call — against the MCP
// project's inspector CLI doing the same to the same server.

// inspectorCLI is the comparison's npm package, pinned.
const inspectorCLI = "@modelcontextprotocol/inspector-cli@1.0.3"

// mcpListBudget is the bound on listing 200 tools and opening
// one form after connect.
const mcpListBudget = 200 * time.Millisecond

// benchMCP measures the MCP rows.
func (s *suite) benchMCP() error {
	schemas := filepath.Join(s.opt.corpus, "schemas")
	if fi, err := os.Stat(schemas); err != nil || !fi.IsDir() {
		why := "the 200-tool server's schemas are the corpus's " + schemas + ", absent (pass --corpus DIR or set MODBAY_CORPUS)"
		for _, what := range []string{"200-tool MCP server: list + open one form, after connect", "`modbay list --refresh`: start the 200-tool server, list, stop", "`modbay invoke m200 ping_000`: start, call, stop"} {
			s.rep.skip(secMCP, what, why)
		}
		return nil
	}
	bt := map[bool]string{true: "3x", false: "20x"}[s.opt.quick]
	r, err := s.goBench("./mcp/", "^BenchmarkList200$", bt, []string{"MODBAY_CORPUS=" + s.opt.corpus})
	if err != nil {
		return err
	}
	for _, c := range []struct{ name, what string }{
		{"warm", "200-tool MCP server: list + open one form, after connect"},
		{"cold", "the same, every schema new (compiled afresh)"},
	} {
		m := r["BenchmarkList200/"+c.name]
		s.rep.add(secMCP, row{what: c.what, value: nsop(m), budget: mcpListBudget, budgetText: "≤ 200 ms",
			note: fmt.Sprintf("`go test ./mcp -bench '^BenchmarkList200$/%s'`: tools/list (4 pages over HTTP, in process), judged as a module, 200 request schemas compiled, one form built and drawn; CPU %.1f ms/op", c.name, m["cpu-ms/op"])})
	}

	// The whole commands, against a stdio server process.
	server := filepath.Join(s.bin, "mcp200")
	build := exec.Command("go", "build", "-o", server, "./bench/internal/mcp200")
	build.Dir = s.root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build mcp200: %v\n%s", err, out)
	}
	home := filepath.Join(s.tmp, "homes", "mcp")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	cfg := fmt.Sprintf("mcp_servers:\n  m200:\n    command: %q\n    args: [%q]\n    roots:\n      %q: ro\n", server, schemas, schemas)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		return err
	}
	list := func() *exec.Cmd { return s.cmdIn(nil, s.exe("modbay"), "list", "--home", home, "--refresh") }
	call := func() *exec.Cmd {
		return s.cmdIn(nil, s.exe("modbay"), "invoke", "--home", home, "m200", "ping_000", "--input", "{}")
	}
	if _, err := runOnce(list()); err != nil {
		return err
	}
	n := s.reps(10, 3)
	inspList, inspCall, why := s.inspectorCmds(server, schemas)
	mks := []func() *exec.Cmd{list, call}
	if why == "" {
		mks = append(mks, inspList, inspCall)
	}
	got, err := interleaved(n, nil, mks...)
	if err != nil {
		return err
	}
	lr := row{what: "`modbay list --refresh`: start the 200-tool server, list, stop", value: medianWall(got[0]),
		note: fmt.Sprintf("median of %d; bench/internal/mcp200, contained", n)}
	cr := row{what: "`modbay invoke m200 ping_000`: start, call, stop", value: medianWall(got[1]),
		note: fmt.Sprintf("median of %d; tool list cached, read-only tool (no approval)", n)}
	if why == "" {
		lr.base, lr.baseName, lr.pairRatio = medianWall(got[2]), "inspector CLI tools/list", pairRatio(got[0], got[2])
		cr.base, cr.baseName, cr.pairRatio = medianWall(got[3]), "inspector CLI tools/call", pairRatio(got[1], got[3])
		lr.note += ", interleaved with the inspector CLI"
		cr.note += ", interleaved with the inspector CLI"
	} else {
		lr.note += "; no baseline: " + why
		cr.note += "; no baseline: " + why
	}
	s.rep.add(secMCP, lr)
	s.rep.add(secMCP, cr)
	return nil
}

// inspectorCmds are the inspector CLI listing and calling server; why
// says why it cannot run.
func (s *suite) inspectorCmds(server, schemas string) (list, call func() *exec.Cmd, why string) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, nil, "node is not on PATH"
	}
	build, why := s.inspector()
	if why != "" {
		return nil, nil, why
	}
	// index.js is the CLI itself (cli.js launches it); it reads
	// ../package.json relative to the working directory, so it runs from
	// its build folder.
	mk := func(args ...string) func() *exec.Cmd {
		return func() *exec.Cmd {
			cmd := exec.Command(node, append([]string{"index.js", server, schemas}, args...)...)
			cmd.Dir, cmd.Env = build, s.env
			return cmd
		}
	}
	if _, err := runOnce(mk("--method", "tools/list")()); err != nil {
		return nil, nil, "the inspector CLI failed: " + strings.TrimSpace(err.Error())
	}
	return mk("--method", "tools/list"), mk("--method", "tools/call", "--tool-name", "ping_000"), ""
}

// inspector is the build folder of an installed inspector CLI: under the
// npm prefix $MODBAY_BENCH_INSPECTOR, else $MODBAY_MCP_EVERYTHING (the
// prefix CI installs the MCP reference server into), else the
// repository's own bench/.cache/inspector-cli, which --install fills
// when it is missing. Nothing is installed anywhere else; why says why
// there is none.
func (s *suite) inspector() (build, why string) {
	own := filepath.Join(s.root, "bench", ".cache", "inspector-cli")
	var prefixes []string
	for _, env := range []string{"MODBAY_BENCH_INSPECTOR", "MODBAY_MCP_EVERYTHING"} {
		if p := os.Getenv(env); p != "" {
			prefixes = append(prefixes, p)
		}
	}
	buildOf := func(prefix string) string {
		return filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "inspector-cli", "build")
	}
	for _, p := range append(prefixes, own) {
		if _, err := os.Stat(filepath.Join(buildOf(p), "index.js")); err == nil {
			return buildOf(p), ""
		}
	}
	if !s.opt.install {
		return "", inspectorCLI + " is not installed (looked under $MODBAY_BENCH_INSPECTOR, $MODBAY_MCP_EVERYTHING and bench/.cache; --install puts it in bench/.cache)"
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "npm is not on PATH to install " + inspectorCLI
	}
	if err := os.MkdirAll(own, 0o755); err != nil {
		return "", err.Error()
	}
	cmd := exec.Command(npm, "install", "--prefix", own, "--no-audit", "--no-fund", inspectorCLI)
	// npm's own download cache goes beside the install, not in the user's.
	cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(s.root, "bench", ".cache", "npm"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Sprintf("npm install %s failed: %v: %s", inspectorCLI, err, lastLine(string(out)))
	}
	return buildOf(own), ""
}
