package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"modbay/config"
	"modbay/gateway"
	"modbay/render"
	"modbay/runner"
	"modbay/ui"
)

// MCPToolsOptions is what `modbay mcp tools` was asked to do.
type MCPToolsOptions struct {
	IO *ioStreams
	G  *globals
	// Tools and Exclude are serve's --tools / --exclude (nil: config's).
	Tools, Exclude []string
	// Schemas prints each tool's input and output schema too.
	Schemas bool
	JSON    bool
}

// newMCPToolsCommand builds `modbay mcp tools`.
func newMCPToolsCommand(g *globals) *cobra.Command {
	o := &MCPToolsOptions{IO: g.io, G: g}
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "Show what each tool modbay mcp serve exposes tells the agent",
		Long: `Lists the tools modbay mcp serve would serve now, as an MCP client receives them
from tools/list: the name, the description (module text the agent reads and obeys),
annotations and, with --schemas, the input and output schemas; --json prints the
tools exactly as sent. Each tool's pin says whether it is served (pinned, or new:
pinned when first served) or withheld because its definition changed (modbay mcp
pins). Nothing is served or pinned.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.Tools, o.Exclude, err = toolFilters(cmd, o.Tools, o.Exclude); err != nil {
				return err
			}
			return mcpToolsRun(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.Tools, "tools", nil, "as serve's --tools `PATTERN`")
	f.StringArrayVar(&o.Exclude, "exclude", nil, "as serve's --exclude `PATTERN`")
	f.BoolVar(&o.Schemas, "schemas", false, "print each tool's input and output schema")
	f.BoolVar(&o.JSON, "json", false, "print the tools as tools/list sends them, with their pin")
	return cmd
}

// mcpToolsRun lists the catalogue as a client would get it.
func mcpToolsRun(ctx context.Context, o *MCPToolsOptions) error {
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	cfg := e.host.Config()
	s := gateway.New(gateway.Options{Host: e.host, Tools: o.Tools, Exclude: o.Exclude, Pins: gateway.OpenPins(cfg.ServeDir())})
	list, err := s.List(ctx)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	if o.JSON {
		return writeJSON(o.IO.Out, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(o.IO.Out, "no tools would be served (modbay list shows which modules are ready)")
		return nil
	}
	// filtered: a pattern (a flag or config.yaml's mcp_serve:) chose them.
	filtered := len(o.Tools)+len(o.Exclude) > 0 || (o.Tools == nil && len(cfg.MCPServe.Tools) > 0) || (o.Exclude == nil && len(cfg.MCPServe.Exclude) > 0)
	for _, l := range list {
		t := l.Tool
		pin := ""
		if l.Pin == "changed" {
			pin = "  [withheld: changed since pinned — modbay mcp pins]"
		}
		fmt.Fprintf(o.IO.Out, "%s  (%s)%s\n", render.SanitizeLine(t.Name), render.SanitizeLine(t.Title), pin)
		fmt.Fprintf(o.IO.Out, "    %s\n", render.SanitizeLine(t.Description))
		if filtered {
			fmt.Fprintf(o.IO.Out, "    selected as %s by the --tools/--exclude patterns\n", render.SanitizeLine(l.Select))
		} else {
			fmt.Fprintf(o.IO.Out, "    --tools/--exclude name: %s\n", render.SanitizeLine(l.Select))
		}
		if a := t.Annotations; a != nil {
			var hints []string
			if a.ReadOnlyHint {
				hints = append(hints, "readOnlyHint")
			}
			if a.DestructiveHint != nil && *a.DestructiveHint {
				hints = append(hints, "destructiveHint")
			}
			if a.OpenWorldHint != nil && *a.OpenWorldHint {
				hints = append(hints, "openWorldHint")
			}
			if len(hints) > 0 {
				fmt.Fprintf(o.IO.Out, "    annotations: %s\n", render.SanitizeLine(fmt.Sprint(hints)))
			}
		}
		if o.Schemas {
			for _, sc := range []struct {
				name string
				v    any
			}{{"inputSchema", t.InputSchema}, {"outputSchema", t.OutputSchema}} {
				if sc.v == nil {
					continue
				}
				b, _ := json.Marshal(sc.v)
				var ind bytes.Buffer
				_ = json.Indent(&ind, b, "    ", "  ")
				fmt.Fprintf(o.IO.Out, "    %s: %s\n", sc.name, render.Sanitize(ind.String()))
			}
		}
	}
	fmt.Fprintln(o.IO.Out, "and the job tools modbay_job_status, modbay_job_wait and modbay_job_cancel (docs/gateway.md)")
	return nil
}

// agentTools is the cockpit's agent tools screen's listing: what the
// home's serve processes expose — the catalogue the newest live session's
// process published (its workspace and patterns), else the one `modbay mcp
// tools` computes for the home (its workspace and config.yaml's
// mcp_serve, never the cockpit's own --examples, --workspace or
// --module) — with each pin, a changed tool accepted as shown.
func agentTools(g *globals, host func() *runner.Host) func(context.Context) (ui.AgentCatalogue, error) {
	return func(ctx context.Context) (ui.AgentCatalogue, error) {
		h := host()
		cfg := h.Config()
		pins := gateway.OpenPins(cfg.ServeDir())
		if c, from := servedCatalogue(h.Config()); c != nil {
			pinned, err := pins.Load()
			if err != nil {
				return ui.AgentCatalogue{}, err
			}
			out := ui.AgentCatalogue{From: from, Stale: func() bool {
				now, _ := servedCatalogue(h.Config())
				return now == nil || now.PID != c.PID || !now.Written.Equal(c.Written)
			}}
			for _, t := range c.Served {
				l := gateway.Listed{Tool: t.Tool, Select: t.Select, Pin: "pinned", Definition: t.Definition}
				if p := pinned[t.Tool.Name]; t.Withheld && p != nil {
					// Withheld when published: changed still unless
					// accepted since (serve then refreshes).
					if d := gateway.Diff(p.Definition, t.Definition); len(d) > 0 {
						l.Pin, l.Diff = "changed", d
					}
				}
				out.Tools = append(out.Tools, agentTool(l, pins))
			}
			return out, nil
		}
		from := fmt.Sprintf("No modbay mcp serve runs for this home: what it would serve now (workspace %s, config.yaml's mcp_serve patterns), as modbay mcp tools lists it.", h.Config().Workspace)
		if g.examples || g.workspace != "" || len(g.modules) > 0 {
			// The cockpit's own flags changed what it lists: list what
			// serve, given only the home, would.
			fg := &globals{home: h.Config().Home, io: g.io}
			defer func() {
				for _, c := range fg.cleanups {
					c()
				}
			}()
			e, err := fg.env(ctx)
			if err != nil {
				return ui.AgentCatalogue{}, err
			}
			h = e.host
			from = fmt.Sprintf("No modbay mcp serve runs for this home: what modbay mcp serve --home %s would serve now (workspace %s, config.yaml's mcp_serve patterns), not this cockpit's --examples, --workspace or --module.", h.Config().Home, h.Config().Workspace)
		}
		list, err := gateway.New(gateway.Options{Host: h, Pins: pins}).List(ctx)
		if err != nil {
			return ui.AgentCatalogue{}, err
		}
		out := ui.AgentCatalogue{From: from, Stale: func() bool {
			now, _ := servedCatalogue(cfg)
			return now != nil
		}}
		for _, l := range list {
			out.Tools = append(out.Tools, agentTool(l, pins))
		}
		return out, nil
	}
}

// servedCatalogue is the catalogue a live serve process of the home
// published — the newest agent session's process's, else the newest
// written — and a sentence saying whose it is; nil when none runs.
func servedCatalogue(cfg *config.Config) (*gateway.Catalogue, string) {
	dir := filepath.Join(cfg.ServeDir(), gateway.SessionsDir)
	cats := gateway.ReadCatalogues(dir)
	if len(cats) == 0 {
		return nil, ""
	}
	ls, _ := gateway.ReadSessions(dir)
	c, client := cats[len(cats)-1], ""
	for i := len(ls) - 1; i >= 0 && client == ""; i-- {
		for _, x := range cats {
			if x.PID == ls[i].PID {
				c, client = x, ls[i].Client
				break
			}
		}
	}
	from := fmt.Sprintf("As modbay mcp serve (pid %d) serves them now", c.PID)
	if client != "" {
		from = fmt.Sprintf("As modbay mcp serve (pid %d, for %s) serves them now", c.PID, client)
	}
	from += ": workspace " + c.Workspace
	if len(c.Tools)+len(c.Exclude) > 0 {
		from += fmt.Sprintf(", --tools %v --exclude %v", c.Tools, c.Exclude)
	}
	from += ", catalogue built " + c.Written.Local().Format(time.TimeOnly) + "."
	if n := len(cats); n > 1 {
		from += fmt.Sprintf(" %d serve processes run; this is the newest session's (each may serve its own workspace).", n)
	}
	return c, from
}

// agentTool is l as the agent tools screen shows it; a changed tool is
// accepted as listed.
func agentTool(l gateway.Listed, pins *gateway.Pins) ui.AgentTool {
	t := ui.AgentTool{Name: l.Tool.Name, Title: l.Tool.Title, Description: l.Tool.Description, Changed: l.Pin == "changed", Diff: l.Diff}
	t.InputSchema, t.OutputSchema = indentedJSON(l.Tool.InputSchema), indentedJSON(l.Tool.OutputSchema)
	if a := l.Tool.Annotations; a != nil {
		if a.ReadOnlyHint {
			t.Hints = append(t.Hints, "readOnlyHint")
		}
		if a.DestructiveHint != nil && *a.DestructiveHint {
			t.Hints = append(t.Hints, "destructiveHint")
		}
		if a.OpenWorldHint != nil && *a.OpenWorldHint {
			t.Hints = append(t.Hints, "openWorldHint")
		}
	}
	if t.Changed {
		name, def := l.Tool.Name, l.Definition
		t.Accept = func() error { return pins.Set(name, def, time.Now()) }
	}
	return t
}

// indentedJSON is v as indented JSON, "" for nil.
func indentedJSON(v any) string {
	if v == nil {
		return ""
	}
	if m, ok := v.(map[string]any); ok && m == nil {
		return ""
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil || string(b) == "null" {
		return ""
	}
	return string(b)
}

// agentSessions lists the live sessions of the home's serve processes.
func agentSessions(serveDir string) func() []string {
	return func() []string {
		ls, _ := gateway.ReadSessions(filepath.Join(serveDir, gateway.SessionsDir))
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = l.String()
		}
		return out
	}
}

// toolFilters returns the --tools and --exclude patterns of cmd, nil for a
// flag not given, so the config's mcp_serve filters apply; a pattern that
// cannot select tools (config.CheckToolPattern) is a usage error.
func toolFilters(cmd *cobra.Command, tools, exclude []string) ([]string, []string, error) {
	for _, f := range []struct {
		name string
		pats *[]string
	}{{"tools", &tools}, {"exclude", &exclude}} {
		if !cmd.Flags().Changed(f.name) {
			*f.pats = nil
		}
		for _, p := range *f.pats {
			if err := config.CheckToolPattern(p); err != nil {
				return nil, nil, withCode(ExitUsage, "--%s: %v", f.name, err)
			}
		}
	}
	return tools, exclude, nil
}
