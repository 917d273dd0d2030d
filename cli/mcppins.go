package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"modbay/config"
	"modbay/gateway"
	"modbay/render"
	"modbay/runner"
)

// MCPPinsOptions is what `modbay mcp pins` was asked to do.
type MCPPinsOptions struct {
	IO *ioStreams
	G  *globals
	// Accept is the tool whose changed definition to pin ("" lists).
	Accept string
}

// newMCPPinsCommand builds `modbay mcp pins` and `modbay mcp pins accept`.
func newMCPPinsCommand(g *globals) *cobra.Command {
	o := &MCPPinsOptions{IO: g.io, G: g}
	cmd := &cobra.Command{
		Use:   "pins",
		Short: "List the tool definitions modbay mcp serve pinned, and the changed ones it withholds",
		Long: `The first time modbay mcp serve serves a tool from this home it pins the tool's
definition (name, description, schemas, annotations, and the module or MCP server it
stands for). When a definition later differs, the tool is withheld from agents —
left out of tools/list, its calls refused with the reason — until you accept it.
This lists every pin, and for each changed tool what changed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return mcpPinsRun(cmd.Context(), o) },
	}
	accept := &cobra.Command{
		Use:   "accept TOOL",
		Short: "Accept a changed tool definition: serve it to agents again",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Accept = args[0]
			return mcpPinsRun(cmd.Context(), o)
		},
	}
	cmd.AddCommand(accept)
	return cmd
}

// mcpPinsRun lists the pins, or accepts o.Accept's changed definition.
func mcpPinsRun(_ context.Context, o *MCPPinsOptions) error {
	home, err := config.ResolveHome(o.G.home)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	cfg := &config.Config{Home: home}
	pins := gateway.OpenPins(cfg.ServeDir())
	if o.Accept != "" {
		if err := pins.Accept(o.Accept, time.Now()); err != nil {
			return withCode(ExitUsage, "%v (in the home %s)", err, home)
		}
		fmt.Fprintf(o.IO.Out, "accepted %s: serve processes of this home serve it again\n", render.SanitizeLine(o.Accept))
		return nil
	}
	all, err := pins.Load()
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	if len(all) == 0 {
		fmt.Fprintln(o.IO.Out, "no tool pinned yet: modbay mcp serve pins each tool the first time it serves it")
		return nil
	}
	rep := runner.GlobalsOf(cfg)
	rep.Workspace = "" // pins live in the home alone
	changed := 0
	for _, name := range gateway.Names(all) {
		p := all[name]
		state := "pinned " + p.Pinned.Local().Format(time.DateTime)
		if p.Changed != nil {
			state = "CHANGED " + p.Changed.Seen.Local().Format(time.DateTime) + ", withheld (" + render.SanitizeLine(rep.Line("mcp", "pins", "accept", name)) + ")"
			changed++
		}
		fmt.Fprintf(o.IO.Out, "%-32s %s\n", render.SanitizeLine(name), state)
		if p.Changed != nil {
			for _, l := range gateway.Diff(p.Definition, p.Changed.Definition) {
				fmt.Fprintf(o.IO.Out, "    %s\n", l)
			}
		}
	}
	if changed > 0 {
		fmt.Fprintf(o.IO.Out, "%d changed tool(s) withheld from agents until accepted\n", changed)
	}
	return nil
}
