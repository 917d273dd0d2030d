package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"modbay/config"
	"modbay/mcp"
	"modbay/render"
	"modbay/runner"
)

// DescribeOptions is what `modbay describe` was asked to do.
type DescribeOptions struct {
	IO *ioStreams
	G  *globals
	// Ref is a module id or an executable path.
	Ref string
	// JSON prints the module, descriptor included, as JSON.
	JSON bool
}

// newDescribeCommand builds `modbay describe`; runF, when non-nil,
// replaces describeRun.
func newDescribeCommand(g *globals, runF func(context.Context, *DescribeOptions) error) *cobra.Command {
	opts := &DescribeOptions{IO: g.io, G: g}
	cmd := &cobra.Command{
		Use:   "describe MODULE|PATH",
		Short: "Describe a module: capabilities, effects, permissions, requirements",
		Long: `Run the module's describe (or use the cached descriptor) and show its
capabilities with their effects, permissions, requirements, skills and overlays.
MODULE is an id in the home; PATH is a module executable anywhere.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ref = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return describeRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON (the descriptor included)")
	return cmd
}

// describeRun loads one module and prints it; a module that could not be
// described exits with a host verdict.
func describeRun(ctx context.Context, o *DescribeOptions) error {
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	m, err := e.load(ctx, o.Ref)
	if err != nil {
		return err
	}
	if o.JSON {
		if err := writeJSON(o.IO.Out, toJSON(m, true)); err != nil {
			return err
		}
	} else {
		writeModule(o.IO.Out, m)
		if srv, ok := e.host.Config().MCPServers[m.ID]; ok && m.Origin == mcp.Origin {
			writeServerFiles(o.IO.Out, srv)
		}
		if md, ok := m.Driver.(*mcp.Driver); ok {
			writeServerSession(o.IO.Out, md.Session())
		}
	}
	if m.Descriptor == nil {
		return silentExit(ExitHostVerdict)
	}
	return nil
}

// writeModule prints a human description of m, every module string
// sanitized.
func writeModule(w io.Writer, m *runner.Module) {
	d := m.Descriptor
	if d != nil {
		fmt.Fprintf(w, "%s %s (%s)\n", clean(d.Name), clean(d.Version), cleanID(m.ID))
	} else {
		fmt.Fprintf(w, "%s\n", cleanID(m.ID))
	}
	fmt.Fprintf(w, "  status:     %s", m.Status)
	if m.Reason != "" {
		fmt.Fprintf(w, " — %s", clean(m.Reason))
	}
	if ld, ok := m.Driver.(*mcp.Driver); ok && m.Exe == "" {
		// A server has no executable of its own: how it is reached.
		l := ld.Launch()
		if strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
			fmt.Fprintf(w, "\n  url:        %s\n", clean(l))
		} else {
			fmt.Fprintf(w, "\n  command:    %s\n", clean(l))
		}
	} else {
		fmt.Fprintf(w, "\n  executable: %s\n", clean(m.Exe))
	}
	for _, v := range m.Violations {
		fmt.Fprintf(w, "  violation:  %s\n", clean(v.Error()))
	}
	for _, s := range m.Warnings {
		fmt.Fprintf(w, "  warning:    %s\n", clean(s))
	}
	if m.Stderr != "" && d == nil {
		fmt.Fprintf(w, "  stderr:\n")
		for _, l := range strings.Split(strings.TrimRight(render.Sanitize(m.Stderr), "\n"), "\n") {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	if d == nil {
		return
	}
	fmt.Fprintln(w, "\nCapabilities")
	for _, c := range d.Capabilities {
		title := c.Title
		if title == "" {
			title = c.ID
		}
		hidden := ""
		switch {
		case c.Hidden && m.EffectsAreHints:
			hidden = " (hidden: a resource or prompt, not an agent tool; R in the cockpit, modbay mcp; docs/mcp.md)"
		case c.Hidden:
			hidden = " (hidden: no form, no agent tool; docs/protocol.md §17)"
		}
		fmt.Fprintf(w, "  %s — %s%s\n", cleanID(c.ID), clean(title), hidden)
		fmt.Fprintf(w, "    %s\n", clean(c.Summary))
		if c.PollCapability != "" {
			fmt.Fprintf(w, "    polled by: %s\n", cleanID(c.PollCapability))
		}
		if c.CancelCapability != "" {
			fmt.Fprintf(w, "    cancelled by: %s\n", cleanID(c.CancelCapability))
		}
		for _, o := range d.Capabilities {
			switch c.ID {
			case o.PollCapability:
				fmt.Fprintf(w, "    polls the jobs of: %s\n", cleanID(o.ID))
			case o.CancelCapability:
				fmt.Fprintf(w, "    cancels the jobs of: %s\n", cleanID(o.ID))
			}
		}
		fmt.Fprintf(w, "    effects: %s\n", strings.Join(render.EffectBadges(c.Effects, c.LongRunning), ", "))
		if c.RequestSchema != "" {
			fmt.Fprintf(w, "    request schema: %s\n", clean(c.RequestSchema))
		}
		if len(c.ArtifactSchemas) > 0 {
			fmt.Fprintf(w, "    artifacts: %s\n", clean(strings.Join(c.ArtifactSchemas, ", ")))
		}
	}
	if reqs := m.RequirementStates(); len(reqs) > 0 {
		fmt.Fprintln(w, "\nRequirements")
		for _, r := range reqs {
			fmt.Fprintf(w, "  %s %s: %s", clean(r.Kind), clean(r.Name), requirementWords(r))
			if r.State != runner.RequirementMet && r.Detail != "" {
				fmt.Fprintf(w, " — %s", clean(r.Detail))
			}
			fmt.Fprintln(w)
		}
	}
	p := d.Permissions
	fmt.Fprintln(w, "\nPermissions (requested, never implied)")
	perm := func(name string, v []string) {
		if len(v) > 0 {
			fmt.Fprintf(w, "  %-16s %s\n", name+":", clean(strings.Join(v, ", ")))
		}
	}
	if m.Origin != mcp.Origin {
		// Not requested but real: every module run gets the workspace
		// root read-write (docs/protocol.md §4), so a person reading what a
		// module may write is told.
		fmt.Fprintf(w, "  %-16s %s\n", "workspace:", workspaceRootWords)
	}
	perm("read roots", p.FilesystemRead)
	perm("write roots", p.FilesystemWrite)
	perm("network", p.Network)
	perm("credentials", p.Credentials)
	perm("paid providers", p.PaidProviders)
	perm("subprocess", p.Subprocess)
	if p.Publish {
		fmt.Fprintf(w, "  %-16s yes\n", "publish:")
	}
	if len(d.Skills) > 0 {
		fmt.Fprintln(w, "\nSkills")
		for _, s := range d.Skills {
			fmt.Fprintf(w, "  %s — %s (~%s)\n", cleanID(s.ID), clean(s.Title), count(s.Tokens, "token", "tokens"))
		}
	}
	if len(d.AgentOverlays) > 0 {
		fmt.Fprintln(w, "\nOverlays")
		for _, o := range d.AgentOverlays {
			fmt.Fprintf(w, "  %s — %s (~%s)\n", cleanID(o.ID), clean(o.Title), count(o.Tokens, "token", "tokens"))
		}
	}
}

// workspaceRootWords is how describe and the cockpit's permissions pane
// name the workspace root, which the host supplies read-write to every
// module run whether or not the module requests it (docs/protocol.md §4, roots).
const workspaceRootWords = "rw, always supplied (the person's working folder)"

// requirementWords says how a requirement stands (docs/protocol.md §9): met (by
// which path, when the host resolved it), needs setup (and why the host
// could not resolve it), or not probed by the module.
func requirementWords(r runner.RequirementState) string {
	switch r.State {
	case runner.RequirementMet:
		if r.By != "" {
			return "available — " + clean(r.By)
		}
		return "available (the module's probe)"
	case runner.RequirementMissing:
		if r.Problem != "" {
			return "needs setup (" + clean(r.Problem) + ")"
		}
		return "needs setup"
	default:
		return "not probed by the module"
	}
}

// writeServerSession prints what an MCP server said as its last session
// started (already sanitized and bounded by the driver); nothing when it
// never started.
func writeServerSession(w io.Writer, ss *mcp.ServerSession) {
	if ss == nil {
		return
	}
	fmt.Fprintln(w, "\nSession (as the server last started)")
	fmt.Fprintf(w, "  %-16s %s\n", "protocol:", ss.ProtocolVersion)
	caps := "none"
	if len(ss.Capabilities) > 0 {
		caps = strings.Join(ss.Capabilities, ", ")
	}
	fmt.Fprintf(w, "  %-16s %s\n", "capabilities:", caps)
	for _, sec := range []struct{ name, text string }{{"instructions:", ss.Instructions}, {"start-up stderr:", ss.StartupStderr}} {
		if sec.text == "" {
			continue
		}
		fmt.Fprintf(w, "  %s\n", sec.name)
		for _, l := range strings.Split(sec.text, "\n") {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}

// writeServerFiles prints what of the host's files a stdio MCP server's
// config entry lets it reach: its working directory, read-only unless
// its roots list it, each root with its mode (and whether the server is
// told of it as an MCP root), and each need (never told).
func writeServerFiles(w io.Writer, srv config.MCPServer) {
	if srv.Transport() != "stdio" || srv.Cwd == "" && len(srv.Roots) == 0 && len(srv.Needs) == 0 {
		return
	}
	fmt.Fprintln(w, "\nFiles (the server's entry in config.yaml)")
	if srv.Cwd != "" {
		mode, listed := srv.Roots[srv.Cwd]
		how := "read-only (list it in roots to let the server write there)"
		if listed {
			how = mode + ", listed in roots"
		}
		fmt.Fprintf(w, "  %-16s %s — %s\n", "cwd:", clean(srv.Cwd), how)
	}
	for _, r := range slices.Sorted(maps.Keys(srv.Roots)) {
		told := ", announced to the server as an MCP root"
		if srv.StartupRoot(r) {
			told = ", not announced (a start-up need import wrote as a root; move it under needs:)"
		}
		fmt.Fprintf(w, "  %-16s %s — %s%s\n", "root:", clean(r), clean(srv.Roots[r]), told)
	}
	for _, r := range slices.Sorted(maps.Keys(srv.Needs)) {
		fmt.Fprintf(w, "  %-16s %s — %s, to start only: not announced as an MCP root\n", "need:", clean(r), clean(srv.Needs[r]))
	}
}
