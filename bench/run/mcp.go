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
		s.rep.note(secMCP, "MCP: not measured — the 200-tool server's schemas are the corpus's "+schemas+", absent (pass --corpus DIR or set MODBAY_CORPUS).")
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
	lists, err := timeRuns(n, nil, list)
	if err != nil {
		return err
	}
	calls, err := timeRuns(n, nil, call)
	if err != nil {
		return err
	}
	inspList, inspCall, why := s.inspectorRuns(n, server, schemas)
	lr := row{what: "`modbay list --refresh`: start the 200-tool server, list, stop", value: medianWall(lists),
		note: fmt.Sprintf("median of %d; bench/internal/mcp200, contained", n)}
	cr := row{what: "`modbay invoke m200 ping_000`: start, call, stop", value: medianWall(calls),
		note: fmt.Sprintf("median of %d; tool list cached, read-only tool (no approval)", n)}
	if why == "" {
		lr.base, lr.baseName = medianWall(inspList), "inspector CLI tools/list"
		cr.base, cr.baseName = medianWall(inspCall), "inspector CLI tools/call"
	} else {
		s.rep.note(secMCP, "Inspector comparison: not run — "+why+".")
	}
	s.rep.add(secMCP, lr)
	s.rep.add(secMCP, cr)
	return nil
}

// inspectorRuns times the inspector CLI listing and calling server (n
// runs each), installing it into a cache folder first when missing; why
// says why it could not run.
func (s *suite) inspectorRuns(n int, server, schemas string) (list, call []sample, why string) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, nil, "node is not on PATH"
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, nil, "no home directory for the npm cache folder"
	}
	prefix := filepath.Join(home, ".cache", "modbay-bench", "inspector-cli")
	build := filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "inspector-cli", "build")
	if _, err := os.Stat(filepath.Join(build, "index.js")); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			return nil, nil, "npm is not on PATH to install " + inspectorCLI
		}
		if err := os.MkdirAll(prefix, 0o755); err != nil {
			return nil, nil, err.Error()
		}
		out, err := exec.Command(npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", inspectorCLI).CombinedOutput()
		if err != nil {
			return nil, nil, fmt.Sprintf("npm install %s failed: %v: %s", inspectorCLI, err, lastLine(string(out)))
		}
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
	list, err = timeRuns(n, nil, mk("--method", "tools/list"))
	if err != nil {
		return nil, nil, err.Error()
	}
	call, err = timeRuns(n, nil, mk("--method", "tools/call", "--tool-name", "ping_000"))
	if err != nil {
		return nil, nil, err.Error()
	}
	return list, call, ""
}
