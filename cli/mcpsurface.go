package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"modbay/history"
	"modbay/internal/words"
	"modbay/mcp"
	"modbay/render"
	"modbay/runner"
)

// MCPSurfaceOptions is what `modbay mcp resources|read|prompts|prompt`
// was asked to do.
type MCPSurfaceOptions struct {
	IO *ioStreams
	G  *globals
	// Command is "resources", "read", "prompts" or "prompt".
	Command string
	// Server is the mcp_servers id.
	Server string
	// URI is what read reads; Prompt what prompt gets.
	URI, Prompt string
	// Args are prompt's `--arg name=value` pairs.
	Args []string
	// JSON prints JSON on stdout.
	JSON bool
	// Yes approves a call that needs approval (read, prompt).
	Yes bool
}

// addMCPSurfaceCommands adds resources, read, prompts and prompt to cmd
// (`modbay mcp`); runF, when non-nil, replaces mcpSurfaceRun.
func addMCPSurfaceCommands(cmd *cobra.Command, g *globals, runF func(context.Context, *MCPSurfaceOptions) error) {
	do := func(c *cobra.Command, o *MCPSurfaceOptions) error {
		if runF != nil {
			return runF(c.Context(), o)
		}
		return mcpSurfaceRun(c.Context(), o)
	}
	res := &MCPSurfaceOptions{IO: g.io, G: g, Command: "resources"}
	resCmd := &cobra.Command{
		Use:   "resources SERVER",
		Short: "List an MCP server's resources and resource templates (every page)",
		Long: `Connects to the server and lists its resources and resource templates, following
every page (at most 1000 resources). Read one with modbay mcp read SERVER URI; a
template is read through its capability (modbay invoke SERVER mcp.resources.template.NAME
with its variables as input).`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error { res.Server = args[0]; return do(c, res) },
	}
	resCmd.Flags().BoolVar(&res.JSON, "json", false, "print JSON")

	read := &MCPSurfaceOptions{IO: g.io, G: g, Command: "read"}
	readCmd := &cobra.Command{
		Use:   "read SERVER URI",
		Short: "Read one resource of an MCP server; its contents become verified artifacts",
		Long: `Reads URI (MCP resources/read) as a run of the server's resources/read capability:
each content is checked and staged as an artifact, text is printed, and the run is kept in
the history like any invoke. Exit codes are invoke's.`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			read.Server, read.URI = args[0], args[1]
			return do(c, read)
		},
	}
	readCmd.Flags().BoolVar(&read.JSON, "json", false, "print the outcome as JSON")
	readCmd.Flags().BoolVarP(&read.Yes, "yes", "y", false, "approve the call if it needs approval")

	prompts := &MCPSurfaceOptions{IO: g.io, G: g, Command: "prompts"}
	promptsCmd := &cobra.Command{
		Use:   "prompts SERVER",
		Short: "List an MCP server's prompts with their arguments",
		Args:  cobra.ExactArgs(1),
		RunE:  func(c *cobra.Command, args []string) error { prompts.Server = args[0]; return do(c, prompts) },
	}
	promptsCmd.Flags().BoolVar(&prompts.JSON, "json", false, "print JSON")

	prompt := &MCPSurfaceOptions{IO: g.io, G: g, Command: "prompt"}
	promptCmd := &cobra.Command{
		Use:   "prompt SERVER NAME",
		Short: "Get one prompt of an MCP server with its arguments",
		Long: `Gets prompt NAME (MCP prompts/get) with the --arg values as a run of the server's
mcp.prompts.get.NAME capability: the arguments are checked against the prompt's, each message
is checked and staged as an artifact, text is printed, and the run is kept in the history.
Exit codes are invoke's.`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			prompt.Server, prompt.Prompt = args[0], args[1]
			return do(c, prompt)
		},
	}
	promptCmd.Flags().StringArrayVar(&prompt.Args, "arg", nil, "argument `name=value` (repeatable)")
	promptCmd.Flags().BoolVar(&prompt.JSON, "json", false, "print the outcome as JSON")
	promptCmd.Flags().BoolVarP(&prompt.Yes, "yes", "y", false, "approve the call if it needs approval")
	cmd.AddCommand(resCmd, readCmd, promptsCmd, promptCmd)
}

// mcpSurfaceRun lists (resources, prompts) or runs (read, prompt) as
// o.Command says.
func mcpSurfaceRun(ctx context.Context, o *MCPSurfaceOptions) error {
	switch o.Command {
	case "read", "prompt":
		return mcpSurfaceCall(ctx, o)
	}
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	m, err := e.load(ctx, o.Server)
	if err != nil {
		return err
	}
	d, ok := m.Driver.(*mcp.Driver)
	if !ok {
		return withCode(ExitUsage, "%s is not an MCP server (config.yaml mcp_servers)", cleanID(o.Server))
	}
	l, truncated, err := d.List(ctx)
	if err != nil {
		return withCode(ExitHostVerdict, "%s: %v", cleanID(o.Server), render.SanitizeLine(err.Error()))
	}
	for _, t := range truncated {
		fmt.Fprintf(o.IO.ErrOut, "note: only %s are shown\n", t)
	}
	if o.JSON {
		if o.Command == "prompts" {
			return writeJSON(o.IO.Out, map[string]any{"prompts": l.Prompts, "completions": l.Completions})
		}
		return writeJSON(o.IO.Out, map[string]any{"resources": l.Resources, "resource_templates": l.Templates, "subscribe": l.Subscribe})
	}
	w := o.IO.Out
	if o.Command == "prompts" {
		fmt.Fprintf(w, "%s\n", words.Count(len(l.Prompts), "prompt", "prompts"))
		for _, p := range l.Prompts {
			fmt.Fprintf(w, "  %s", p.Name)
			if p.Title != "" && p.Title != p.Name {
				fmt.Fprintf(w, " (%s)", p.Title)
			}
			if p.Description != "" {
				fmt.Fprintf(w, " — %s", p.Description)
			}
			fmt.Fprintln(w)
			for _, a := range p.Arguments {
				req := "optional"
				if a.Required {
					req = "required"
				}
				fmt.Fprintf(w, "      --arg %s=…  %s", a.Name, req)
				if a.Description != "" {
					fmt.Fprintf(w, " · %s", a.Description)
				}
				fmt.Fprintln(w)
			}
		}
		if len(l.Prompts) > 0 {
			fmt.Fprintf(w, "Get one: modbay mcp prompt %s NAME --arg name=value\n", cleanID(o.Server))
		}
		return nil
	}
	fmt.Fprintf(w, "%s\n", words.Count(len(l.Resources), "resource", "resources"))
	for _, r := range l.Resources {
		line := "  " + r.URI
		if n := firstOf(r.Title, r.Name); n != "" {
			line += "  " + n
		}
		var meta []string
		if r.MIMEType != "" {
			meta = append(meta, r.MIMEType)
		}
		if r.Size > 0 {
			meta = append(meta, fmt.Sprintf("%d bytes", r.Size))
		}
		if len(meta) > 0 {
			line += " · " + strings.Join(meta, " · ")
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%s\n", words.Count(len(l.Templates), "resource template", "resource templates"))
	for _, t := range l.Templates {
		fmt.Fprintf(w, "  %s  %s\n", t.URITemplate, firstOf(t.Title, t.Name))
		fmt.Fprintf(w, "      read with: modbay invoke %s %s --input '{…}'\n", cleanID(o.Server), runner.ShellQuote(t.Capability))
	}
	if len(l.Resources) > 0 {
		fmt.Fprintf(w, "Read one: modbay mcp read %s URI\n", cleanID(o.Server))
	}
	return nil
}

// firstOf is the first of ss that is not "".
func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// mcpSurfaceCall reads a resource or gets a prompt as invoke runs a
// capability (InvokeOptions.call), on one host: the server is started
// once, for naming the prompt and for the call.
func mcpSurfaceCall(ctx context.Context, o *MCPSurfaceOptions) error {
	inv := &InvokeOptions{IO: o.IO, G: o.G, ModuleRef: o.Server, JSON: o.JSON, Yes: o.Yes}
	var input any = map[string]string{"uri": o.URI}
	inv.CapabilityID = mcp.CapRead
	if o.Command == "prompt" {
		values, err := argValues(o.Args)
		if err != nil {
			return inv.refuse(usageRefusal("%v", err))
		}
		input = values
	}
	e, err := o.G.env(ctx)
	if err != nil {
		return inv.refuse(&refusal{Outcome: outcomeUsage, Code: codeOf(err), Message: err.Error(), Err: err})
	}
	m, err := e.load(ctx, o.Server)
	if err != nil {
		return inv.refuse(usageRefusal("%v", err))
	}
	d, ok := m.Driver.(*mcp.Driver)
	if !ok {
		return inv.refuse(usageRefusal("%s is not an MCP server (config.yaml mcp_servers)", cleanID(o.Server)))
	}
	if o.Command == "prompt" {
		id, err := d.PromptCapability(ctx, o.Prompt)
		if err != nil {
			return inv.refuse(usageRefusal("%s: %s", cleanID(o.Server), render.SanitizeLine(err.Error())))
		}
		inv.CapabilityID = id
	}
	raw, _ := json.Marshal(input)
	return inv.call(ctx, e, m, raw, nil, history.BeginOptions{Source: history.SourceInvoke})
}
