package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"modbay/runner"
	"modbay/ui/formview"
)

// completer is a driver whose capabilities' arguments a server completes
// (an MCP server's prompts and resource templates, completion/complete;
// mcp.Driver). Completes does no I/O; Complete asks the server.
type completer interface {
	Completes(capID string) bool
	Complete(ctx context.Context, capID, arg, value string, others map[string]string) (values []string, more bool, err error)
}

// completeTimeout bounds one completion question: the person waits for
// it with the field focused.
const completeTimeout = 10 * time.Second

// completerFor is the form completer of capability capID of mod, nil when
// its driver completes nothing for it. The question runs in the command.
func completerFor(ctx context.Context, mod *runner.Module, capID string) formview.Completer {
	cd, ok := mod.Driver.(completer)
	if !ok || !cd.Completes(capID) {
		return nil
	}
	return func(field, value string, others map[string]string) tea.Cmd {
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, completeTimeout)
			defer cancel()
			vals, more, err := cd.Complete(ctx, capID, field, value, others)
			return formview.Completions{Field: field, Values: vals, More: more, Err: err}
		}
	}
}
