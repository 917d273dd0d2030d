package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"modbay/approval"
	"modbay/config"
	"modbay/gateway"
	"modbay/history"
	"modbay/runner"
)

// MCPServeOptions is what `modbay mcp serve` was asked to do.
type MCPServeOptions struct {
	IO *ioStreams
	G  *globals
	// Tools and Exclude are --tools / --exclude (nil: config.yaml's
	// mcp_serve: patterns).
	Tools, Exclude []string
	// Follow is how long a call follows a long-running job before it
	// returns the job's handle (0: gateway.DefaultFollow).
	Follow time.Duration
	// ApprovalWait is how long a call waits for an answer in the cockpit
	// before it returns "approval pending" (0: gateway.DefaultApprovalWait).
	ApprovalWait time.Duration
	// HTTP, when not "", serves streamable HTTP on this loopback
	// HOST:PORT instead of stdio; RotateToken makes a new bearer token.
	HTTP        string
	RotateToken bool
}

// newMCPServeCommand builds `modbay mcp serve`.
func newMCPServeCommand(g *globals) *cobra.Command {
	o := &MCPServeOptions{IO: g.io, G: g}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the home's modules and MCP servers as MCP tools over stdio, for agents",
		Long: `Runs an MCP server on standard input and output for an MCP client (Claude Code,
Claude Desktop, VS Code, Cursor, Codex…): one tool per ready capability of the
home's modules and per tool of its mcp_servers. Every call runs as modbay invoke
runs it — validated, planned, contained, checked and recorded in the history
(source "mcp serve") — and a call that needs approval runs when
policy.pre_approved covers it, is asked in a running cockpit of the home (the
call waits up to --approval-wait, then returns "approval pending": call again
once a person answered), through the client's elicitation only with
mcp_serve.approve_by_elicitation: true, and is otherwise refused with nothing run.
A tool whose definition changed since this home first served it is withheld
until a person accepts it (modbay mcp pins).

--http 127.0.0.1:PORT serves streamable HTTP on a loopback address instead,
each request with the bearer token kept in <home>/serve/token.

Modules get the home's workspace, or --workspace DIR: never the client's
current directory unless you pass it. Standard output carries only the
protocol. docs/gateway.md sets it up for each client.`,
		Example: `  modbay mcp serve --workspace ~/src/project
  modbay mcp serve --tools notes --tools 'github/*issue*' --exclude '*/*.echo'
  modbay mcp serve --http 127.0.0.1:8765`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if o.Tools, o.Exclude, err = toolFilters(cmd, o.Tools, o.Exclude); err != nil {
				return err
			}
			return mcpServeRun(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.Tools, "tools", nil, "serve only the tools this glob `PATTERN` selects: MODULE or MODULE/CAPABILITY, the host's module id or MCP server id (repeatable; default: config mcp_serve.tools, else all)")
	f.StringArrayVar(&o.Exclude, "exclude", nil, "leave out the tools this glob `PATTERN` selects, as --tools (repeatable; default: config mcp_serve.exclude)")
	f.DurationVar(&o.ApprovalWait, "approval-wait", gateway.DefaultApprovalWait, "how long a call that needs approval waits for a person's answer in a running cockpit before it returns \"approval pending\"")
	f.StringVar(&o.HTTP, "http", "", "serve streamable HTTP on this loopback `ADDR` (127.0.0.1:PORT) instead of stdio, with the bearer token in <home>/serve/token")
	f.BoolVar(&o.RotateToken, "rotate-token", false, "with --http: replace the bearer token with a new one (clients need the new one)")
	f.DurationVar(&o.Follow, "follow", gateway.DefaultFollow, "how long a call follows a long-running job with progress before it returns the job's handle")
	return cmd
}

// mcpServeRun serves until standard input closes, SIGTERM or SIGINT;
// every run still going is then killed (or its job left running) and
// recorded before it returns.
func mcpServeRun(ctx context.Context, o *MCPServeOptions) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if o.HTTP != "" {
		if err := gateway.LoopbackAddr(o.HTTP); err != nil {
			return withCode(ExitUsage, "%v", err)
		}
	} else if o.RotateToken {
		return withCode(ExitUsage, "--rotate-token goes with --http")
	}
	e, err := o.G.env(ctx)
	if err != nil {
		return err
	}
	hist, _ := history.OpenConfig(e.host.Config()) // nil: nothing recorded
	cur := e
	// A changed config.yaml builds the host again, as the cockpit's
	// reload does (MCP servers kept when their entries did not change).
	reload := func() (*runner.Host, error) {
		cfg, err := config.Load(cur.host.Config().Home)
		if err != nil {
			return nil, err
		}
		next, err := o.G.envFor(cfg, cur)
		if err != nil {
			return nil, err
		}
		cur = next
		return next.host, nil
	}
	s := gateway.New(gateway.Options{Host: e.host, History: hist, Tools: o.Tools, Exclude: o.Exclude, Follow: o.Follow,
		Version: "dev", Reload: reload, Pins: gateway.OpenPins(e.host.Config().ServeDir()),
		Cockpits: filepath.Join(e.host.Config().ServeDir(), approval.SocketsDir), ApprovalWait: o.ApprovalWait,
		SkillFolders: skillFoldersAt(e.host.Config(), o.G.skills, e.host.Config().Workspace), SkillWritableRoots: writableRoots(e.host.Config()),
		Sessions: filepath.Join(e.host.Config().ServeDir(), gateway.SessionsDir)})
	if o.HTTP == "" {
		return s.Run(ctx, s.Stdio(os.Stdin, os.Stdout), true)
	}
	token, err := gateway.Token(e.host.Config().ServeDir(), o.RotateToken)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	ln, err := net.Listen("tcp", o.HTTP)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	fmt.Fprintf(o.IO.ErrOut, "modbay mcp serve: listening on http://%s%s (bearer token in %s)\n", ln.Addr(), gateway.HTTPPath,
		filepath.Join(e.host.Config().ServeDir(), gateway.TokenFile))
	return s.RunHTTP(ctx, ln, token, true)
}
