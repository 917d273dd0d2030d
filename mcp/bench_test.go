package mcp

// The speed bound: a server with 200 tools whose schemas are
// real ones (the shared corpus's MCP tool schemas: GitHub, Sentry,
// Kubernetes, Cloudflare, Notion, Playwright…, repeated) is listed and
// one tool's form opened in under 200 ms once connected. The server is an
// in-process SDK server behind streamable HTTP (httptest), so the figure
// is modbay's (list all pages, judge the descriptor, compile 200 request
// schemas, build and draw one form), not a subprocess's start-up.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/config"
	"modbay/internal/testcorpus"
	"modbay/runner"
	"modbay/schema"
	"modbay/ui/common"
	"modbay/ui/form"
	"modbay/ui/formview"
)

// benchTools is the tool count of the benchmark's server.
const benchTools = 200

// benchPageSize is its tools/list page size: four pages.
const benchPageSize = 50

// corpusSchemas reads the corpus's tool input schemas, sorted by file
// name, with their base names.
func corpusSchemas(tb testing.TB) (names []string, schemas []json.RawMessage) {
	dir := testcorpus.Dir(tb, "schemas")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no schemas in %s: %v", dir, err)
	}
	slices.Sort(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".json"))
		schemas = append(schemas, b)
	}
	return names, schemas
}

// addBenchTools (re)registers the 200 tools on s; gen > 0 puts a
// $comment naming it into every schema, so each schema is new to the
// compile cache (a cold list).
func addBenchTools(tb testing.TB, s *sdk.Server, names []string, schemas []json.RawMessage, gen int) {
	tb.Helper()
	handler := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
	}
	tools := make([]*sdk.Tool, 0, benchTools)
	for i := range benchTools {
		k := i % len(schemas)
		var m map[string]any
		if err := json.Unmarshal(schemas[k], &m); err != nil {
			tb.Fatal(err)
		}
		if gen > 0 {
			m["$comment"] = fmt.Sprintf("generation %d tool %d", gen, i)
		}
		_, tool, _ := strings.Cut(names[k], "__")
		tools = append(tools, &sdk.Tool{Name: fmt.Sprintf("%s_%03d", strings.ReplaceAll(tool, "-", "_"), i),
			Description: "Tool " + names[k] + " (benchmark copy).", InputSchema: m,
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: i%2 == 0, OpenWorldHint: ptr(i%3 == 0)}})
	}
	for _, t := range tools {
		s.AddTool(t, handler)
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkList200 measures, once connected, listing a 200-tool server
// (all pages, judged as a module) and opening one tool's form (built and
// drawn at 100×30): warm (schemas already compiled) and cold (every
// schema new).
func BenchmarkList200(b *testing.B) {
	names, schemas := corpusSchemas(b)
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			srv := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1"}, &sdk.ServerOptions{PageSize: benchPageSize})
			addBenchTools(b, srv, names, schemas, 0)
			url := httpServer(b, srv, nil)
			f := newFixture(b, config.SandboxOff, map[string]config.MCPServer{"bench": {URL: url}})
			m := f.module("bench")
			if m.Status != runner.StatusReady || len(m.Descriptor.Capabilities) != benchTools {
				b.Fatalf("bench server: %s %s, %d tools", m.Status, m.Reason, len(m.Descriptor.Capabilities))
			}
			// The form opened: the GitHub issue_write copy, the largest
			// of the common ones.
			capID := m.Descriptor.Capabilities[len(names)+2].ID
			com := common.New(true)
			com.Width, com.Height = 100, 30
			b.ReportAllocs()
			var cpu time.Duration
			b.ResetTimer()
			for i := range b.N {
				if cold {
					b.StopTimer()
					addBenchTools(b, srv, names, schemas, i+1)
					b.StartTimer()
				}
				cpu0 := cpuTime()
				m = f.host.Redescribe(f.ctx, m)
				c := m.Descriptor.Capability(capID)
				if m.Status != runner.StatusReady || c == nil {
					b.Fatalf("relisted: %s %s", m.Status, m.Reason)
				}
				fm, err := form.Build(m.Descriptor.RequestSchemas[c.RequestSchema])
				if err != nil {
					b.Fatal(err)
				}
				v := formview.New(com, fm, schema.ValidateInput)
				if v.View() == "" {
					b.Fatal("empty form")
				}
				cpu += cpuTime() - cpu0
			}
			b.StopTimer()
			// CPU time of the whole process (client and in-process
			// server) in the timed part, per op: the figure that holds on
			// a machine busy with other work, where the wall clock does
			// not.
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N)/1000, "cpu-ms/op")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/op")
		})
	}
}
