package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"modbay/config"
	"modbay/gateway"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
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
// A tool's current definition is the one `modbay mcp tools` computes
// (gateway.Server.List), so both say the same after a module changed and
// before a serve process rebuilt its list; a pin whose tool is not
// listed now keeps the change a serve process recorded.
func mcpPinsRun(ctx context.Context, o *MCPPinsOptions) error {
	home, err := config.ResolveHome(o.G.home)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	cfg := &config.Config{Home: home}
	pins := gateway.OpenPins(cfg.ServeDir())
	now, note := currentTools(ctx, o.G, pins)
	if note != "" {
		fmt.Fprintln(o.IO.ErrOut, note)
	}
	if o.Accept != "" {
		if l, ok := now[o.Accept]; ok && l.Pin == "changed" {
			if err := pins.Set(o.Accept, l.Definition, time.Now()); err != nil {
				return withCode(ExitUsage, "%v (in the home %s)", err, home)
			}
		} else if err := pins.Accept(o.Accept, time.Now()); err != nil {
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
		var diff []string
		var seen time.Time
		if l, ok := now[name]; ok {
			if l.Pin == "changed" {
				diff, seen = l.Diff, time.Now()
				if p.Changed != nil && p.Changed.Digest == gateway.DigestOf(l.Definition) {
					seen = p.Changed.Seen
				}
			}
		} else if p.Changed != nil {
			diff, seen = gateway.Diff(p.Definition, p.Changed.Definition), p.Changed.Seen
		}
		state := "pinned " + p.Pinned.Local().Format(time.DateTime)
		if diff != nil {
			state = "CHANGED " + seen.Local().Format(time.DateTime) + ", withheld (" + render.SanitizeLine(rep.Line("mcp", "pins", "accept", name)) + ")"
			changed++
		}
		fmt.Fprintf(o.IO.Out, "%-32s %s\n", render.SanitizeLine(name), state)
		if diff != nil {
			fmt.Fprintln(o.IO.Out, "  what changed (- pinned, + served now):")
			for _, l := range wrapDiff(diff, outWidth(o.IO)-4) {
				fmt.Fprintf(o.IO.Out, "    %s\n", l)
			}
		}
	}
	if changed > 0 {
		fmt.Fprintf(o.IO.Out, "%d changed tool(s) withheld from agents until accepted\n", changed)
	}
	return nil
}

// currentTools is each tool by name as `modbay mcp tools` lists it now
// (every tool, no pattern), with its pin's state; note says why it is
// empty when the home's modules could not be discovered.
func currentTools(ctx context.Context, g *globals, pins *gateway.Pins) (map[string]gateway.Listed, string) {
	out := map[string]gateway.Listed{}
	e, err := g.env(ctx)
	if err != nil {
		return out, fmt.Sprintf("modbay could not list the tools served now (%v): showing the changes serve processes recorded", err)
	}
	list, err := gateway.New(gateway.Options{Host: e.host, Tools: []string{}, Exclude: []string{}, Pins: pins}).List(ctx)
	if err != nil {
		return out, fmt.Sprintf("modbay could not list the tools served now (%v): showing the changes serve processes recorded", err)
	}
	for _, l := range list {
		out[l.Tool.Name] = l
	}
	return out, ""
}

// outWidth is the width of o's terminal, 100 when it is not one (a pipe,
// a file) or does not say.
func outWidth(o *ioStreams) int {
	if f, ok := o.Out.(*os.File); ok && o.IsTerminal(f) {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w >= 40 {
			return w
		}
	}
	return 100
}

// wrapDiff wraps each line of a definition's diff (gateway.Diff) to w
// cells, a wrapped "- ", "+ " or "  " line going on under its mark.
func wrapDiff(diff []string, w int) []string {
	var out []string
	for _, d := range diff {
		mark, text := "", d
		if len(d) >= 2 && (d[:2] == "- " || d[:2] == "+ " || d[:2] == "  ") {
			mark, text = d[:2], d[2:]
		}
		for _, l := range strings.Split(common.Wrap(text, max(w-len(mark), 10)), "\n") {
			out = append(out, mark+l)
		}
	}
	return out
}
