package cli

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"modbay/config"
	"modbay/mcp"
	"modbay/render"
)

// MCPLoginOptions is what `modbay mcp login` or `logout` was asked to do.
type MCPLoginOptions struct {
	IO *ioStreams
	G  *globals
	// Server is the mcp_servers id to sign in to (or out of).
	Server string
	// Logout removes the stored token instead of signing in.
	Logout bool
	// NoBrowser prints the authorization URL without opening a browser.
	NoBrowser bool
}

// addMCPLoginCommands adds `mcp login` and `mcp logout` to cmd; runF, when
// non-nil, replaces mcpLoginRun.
func addMCPLoginCommands(cmd *cobra.Command, g *globals, runF func(context.Context, *MCPLoginOptions) error) {
	run := func(o *MCPLoginOptions) func(*cobra.Command, []string) error {
		return func(c *cobra.Command, args []string) error {
			o.Server = args[0]
			if runF != nil {
				return runF(c.Context(), o)
			}
			return mcpLoginRun(c.Context(), o)
		}
	}
	in := &MCPLoginOptions{IO: g.io, G: g}
	login := &cobra.Command{
		Use:   "login SERVER",
		Short: "Sign in to a remote MCP server with OAuth; the token is kept under the home",
		Long: `Signs in to a remote MCP server (an mcp_servers entry with a url) with OAuth 2.1's
authorization code flow: modbay registers itself with the server's authorization
server (dynamic client registration), prints the sign-in URL and opens it in your
browser on a local display; the browser comes back to a loopback address modbay
listens on. Over SSH (or with --no-browser) open the URL on any machine; if the
browser cannot reach this one, paste the address it was sent to (http://127.0.0.1…)
here. The token is stored in <home>/auth/mcp/SERVER.json (mode 0600), refreshed as it
expires, and never shown. modbay mcp logout SERVER removes it.`,
		Args: cobra.ExactArgs(1),
		RunE: run(in),
	}
	login.Flags().BoolVar(&in.NoBrowser, "no-browser", false, "print the sign-in URL without opening a browser")
	out := &MCPLoginOptions{IO: g.io, G: g, Logout: true}
	logout := &cobra.Command{
		Use:   "logout SERVER",
		Short: "Forget a remote MCP server's stored OAuth token",
		Args:  cobra.ExactArgs(1),
		RunE:  run(out),
	}
	cmd.AddCommand(login, logout)
}

// mcpLoginRun signs in to (or out of) o.Server.
func mcpLoginRun(ctx context.Context, o *MCPLoginOptions) error {
	home, err := config.ResolveHome(o.G.home)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	cfg, err := config.Load(home)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	srv, ok := cfg.MCPServers[o.Server]
	if !ok {
		return withCode(ExitUsage, "no MCP server %q in config.yaml's mcp_servers", o.Server)
	}
	id := render.SanitizeLine(o.Server)
	if o.Logout {
		had, err := mcp.Logout(home, o.Server)
		switch {
		case err != nil:
			return err
		case !had:
			fmt.Fprintf(o.IO.ErrOut, "%s: not signed in\n", id)
		default:
			fmt.Fprintf(o.IO.ErrOut, "%s: signed out (its token was removed)\n", id)
		}
		return nil
	}
	lo := mcp.LoginOptions{Out: o.IO.ErrOut}
	ssh := o.IO.Getenv("SSH_CONNECTION") != "" || o.IO.Getenv("SSH_TTY") != ""
	display := o.IO.Getenv("DISPLAY") != "" || o.IO.Getenv("WAYLAND_DISPLAY") != "" || runtime.GOOS == "darwin"
	if !o.NoBrowser && display && !ssh {
		opener := "xdg-open"
		if runtime.GOOS == "darwin" {
			opener = "open"
		}
		lo.Open = func(u string) error {
			c := exec.Command(opener, u)
			if err := c.Start(); err != nil {
				return err
			}
			go func() { _ = c.Wait() }()
			return nil
		}
	}
	if o.IO.IsTerminal(o.IO.In) {
		lines := bufio.NewScanner(o.IO.In)
		lo.Paste = func(ctx context.Context) (string, error) {
			if !lines.Scan() {
				return "", fmt.Errorf("no redirect URL pasted")
			}
			return strings.TrimSpace(lines.Text()), nil
		}
	}
	if err := mcp.Login(ctx, home, o.Server, srv, nil, lo); err != nil {
		return withCode(ExitHostVerdict, "%s: %v", id, err)
	}
	fmt.Fprintf(o.IO.ErrOut, "%s: signed in; the token is stored under %s (0600)\n", id, render.SanitizeLine(home))
	return nil
}
