package cli

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"modbay/mcp"
	"modbay/runner"
)

// moduleJSON is the --json shape of one module in list, describe and
// validate.
type moduleJSON struct {
	ID         string      `json:"id"`
	Name       string      `json:"name,omitempty"`
	Version    string      `json:"version,omitempty"`
	Status     string      `json:"status"`
	Reason     string      `json:"reason,omitempty"`
	Exe        string      `json:"exe"`
	Origin     string      `json:"origin"`
	Violations []violation `json:"violations"`
	Warnings   []string    `json:"warnings"`
	Descriptor any         `json:"descriptor,omitempty"`
	Cached     bool        `json:"cached"`
	// DescribedAt is when the descriptor was obtained (for a cached one,
	// when it was cached), RFC 3339.
	DescribedAt *time.Time `json:"described_at,omitempty"`
	// Refused maps each capability refused for a request schema no input
	// satisfies to the finding (runner.Module.Refused).
	Refused map[string]string `json:"refused,omitempty"`
	// MCP is an MCP server's resources, templates and prompts as last
	// listed (describe only; mcp.Driver.Listed).
	MCP *mcp.Listing `json:"mcp,omitempty"`
	// MCPSession is what an MCP server said as its last session started:
	// protocol version, capabilities, instructions, start-up stderr.
	MCPSession *mcp.ServerSession `json:"mcp_session,omitempty"`
}

// violation is one broken rule in --json output.
type violation struct {
	Path   string `json:"path"`
	Detail string `json:"detail"`
}

func toJSON(m *runner.Module, withDescriptor bool) moduleJSON {
	j := moduleJSON{ID: m.ID, Status: string(m.Status), Reason: m.Reason, Exe: m.Exe, Origin: m.Origin,
		Violations: []violation{}, Warnings: m.Warnings, Cached: m.Cached, Refused: m.Refused}
	if !m.DescribedAt.IsZero() {
		t := m.DescribedAt.UTC()
		j.DescribedAt = &t
	}
	if j.Warnings == nil {
		j.Warnings = []string{}
	}
	for _, v := range m.Violations {
		j.Violations = append(j.Violations, violation{v.Path, v.Detail})
	}
	if d := m.Descriptor; d != nil {
		j.Name, j.Version = d.Name, d.Version
		if withDescriptor {
			j.Descriptor = d
			if md, ok := m.Driver.(*mcp.Driver); ok {
				j.MCP = md.Listed()
				j.MCPSession = md.Session()
			}
		}
	}
	return j
}

// ListOptions is what `modbay list` was asked to do.
type ListOptions struct {
	IO *ioStreams
	G  *globals
	// JSON prints the modules as a JSON array.
	JSON bool
	// Refresh lists every MCP server's tools again (connecting it)
	// instead of showing the cached list.
	Refresh bool
}

// newListCommand builds `modbay list`; runF, when non-nil, replaces
// listRun.
func newListCommand(g *globals, runF func(context.Context, *ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: g.io, G: g}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the installed modules with their status",
		Long: `List every module candidate in the home (and --module paths) with its status:
ready, needs setup, disabled or broken, and the reason. An MCP server is connected
only the first time it is listed (or when its config entry or version changed): after
that its last known tool list is shown with its age; --refresh connects it again.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return listRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&opts.Refresh, "refresh", false, "connect every MCP server and list its tools again, instead of the cached list")
	return cmd
}

// listRun discovers every module and prints one row (or JSON object) each.
func listRun(ctx context.Context, o *ListOptions) error {
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	if o.Refresh {
		o.G.refreshMCP()
	}
	mods := e.host.Discover(ctx)
	now := time.Now()
	out := o.IO.Out
	if o.JSON {
		list := make([]moduleJSON, 0, len(mods))
		for _, m := range mods {
			list = append(list, toJSON(m, false))
		}
		return writeJSON(out, list)
	}
	if e.banner != "" {
		fmt.Fprintln(o.IO.ErrOut, e.banner)
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tVERSION\tNAME\tREASON")
	for _, m := range mods {
		name, version := "", ""
		if m.Descriptor != nil {
			name, version = m.Descriptor.Name, m.Descriptor.Version
		}
		reason := clean(m.Reason)
		if m.Origin == mcp.Origin && m.Cached && reason == "" {
			reason = mcp.ListedAge(m.DescribedAt, now)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cleanID(m.ID), m.Status, clean(version), clean(name), reason)
	}
	return tw.Flush()
}
