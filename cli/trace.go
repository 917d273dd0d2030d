package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"modbay/render"
	"modbay/runner"
)

// traceOut is the --json shape of `invoke --trace`: each
// process call's raw exchange and the two copy lines.
type traceOut struct {
	Calls []traceCall `json:"calls"`
	Copy  traceCopy   `json:"copy"`
}

// traceCall is one call of the exchange. Request, Stdout and Stderr are
// the bytes as written and received (stdout's first 64 KiB), as JSON
// strings (invalid UTF-8 replaced).
type traceCall struct {
	runner.ExchangeCall
	Request  string           `json:"request"`
	Stdout   string           `json:"stdout"`
	Stderr   string           `json:"stderr"`
	Timings  map[string]int64 `json:"timings_us"`
	Complete bool             `json:"stdout_complete"`
	// Messages are a session call's JSON-RPC messages (an MCP server's),
	// each as a JSON string; none for a process call.
	Messages []traceMessage `json:"messages,omitempty"`
}

// traceMessage is one JSON-RPC message of a session call: its direction,
// time from the call's first message in microseconds, size and the bytes
// kept (runner.ExchangeStdoutShown at most) as a string.
type traceMessage struct {
	Direction runner.FrameDirection `json:"direction"`
	AtUS      int64                 `json:"at_us"`
	Bytes     int                   `json:"bytes"`
	Data      string                `json:"data"`
}

// traceCopy holds the copy lines (runner.CopyLines, shared with the
// cockpit's raw exchange): the modbay invoke line (secret values
// redacted) and the line that makes the module call without modbay, with
// the request file it reads and the note that it runs uncontained.
type traceCopy = runner.CopyLines

// buildTrace gathers a run's exchange and copy lines; the first call's
// request file is saved under the home's state directory (0600).
func buildTrace(h *runner.Host, plan *runner.Plan, moduleRef string, input json.RawMessage, x *runner.Exchange) traceOut {
	return traceOut{Calls: traceCalls(x.Calls()), Copy: h.CopyLines(plan, moduleRef, input, x.Calls())}
}

// traceCalls is each recorded call in its trace shape.
func traceCalls(calls []runner.ExchangeCall) []traceCall {
	out := []traceCall{}
	for _, c := range calls {
		tc := traceCall{ExchangeCall: c, Request: string(c.Request), Stdout: string(c.Stdout), Stderr: string(c.Stderr),
			Timings: map[string]int64{}, Complete: len(c.Stdout) == c.StdoutBytes}
		for _, t := range c.Timings() {
			tc.Timings[t.Phase] = t.Duration.Microseconds()
		}
		for _, m := range c.Messages {
			tc.Messages = append(tc.Messages, traceMessage{Direction: m.Direction, AtUS: m.At.Sub(c.Messages[0].At).Microseconds(),
				Bytes: m.Bytes, Data: string(m.Data)})
		}
		out = append(out, tc)
	}
	return out
}

// writeTrace prints the raw exchange for a person: every module string
// sanitized, stdout and stderr as received (stdout's first 64 KiB).
func writeTrace(w io.Writer, t traceOut) {
	for i, c := range t.Calls {
		fmt.Fprintf(w, "\n── raw exchange %d/%d  %s\n", i+1, len(t.Calls), c.RequestID)
		if len(c.Messages) > 0 && len(c.Argv) == 0 && c.Exit == nil {
			writeSession(w, c)
			continue
		}
		fmt.Fprintf(w, "argv:     %s\n", clean(runner.ShellJoin(c.Argv)))
		fmt.Fprintf(w, "env:      %s\n", clean(strings.Join(c.Env, " ")))
		fmt.Fprintf(w, "dir:      %s\n", clean(c.Dir))
		if e := c.Exit; e != nil {
			fmt.Fprintf(w, "exit:     %s\n", clean(e.Words()))
		}
		var ts []string
		for _, p := range []string{runner.PhaseSpawn, runner.PhaseFirstByte, runner.PhaseExit, runner.PhaseVerify, runner.PhaseStage} {
			if us, ok := c.Timings[p]; ok {
				ts = append(ts, fmt.Sprintf("%s %s", strings.ReplaceAll(p, "_", " "), time.Duration(us)*time.Microsecond))
			}
		}
		fmt.Fprintf(w, "timings:  %s\n", strings.Join(ts, ", "))
		fmt.Fprintf(w, "request file (%s):\n%s\n", render.HumanBytes(int64(len(c.Request))), indent(render.Sanitize(c.Request)))
		head := fmt.Sprintf("stdout (%s)", render.HumanBytes(int64(c.StdoutBytes)))
		if !c.Complete {
			head = fmt.Sprintf("stdout (first %s of %s)", render.HumanBytes(int64(len(c.Stdout))), render.HumanBytes(int64(c.StdoutBytes)))
		}
		fmt.Fprintf(w, "%s:\n%s\n", head, indent(render.Sanitize(strings.TrimRight(c.Stdout, "\n"))))
		if c.Stderr != "" {
			fmt.Fprintf(w, "stderr:\n%s\n", indent(render.Sanitize(strings.TrimRight(c.Stderr, "\n"))))
		}
	}
	fmt.Fprintf(w, "\nrepeat with modbay:\n  %s\n", clean(t.Copy.Invoke))
	if t.Copy.NeedsYes {
		fmt.Fprintf(w, "  (%s)\n", runner.RepeatNeedsYes)
	}
	switch {
	case t.Copy.ModuleCall != "":
		fmt.Fprintf(w, "the module call without modbay (%s):\n  %s\n", clean(t.Copy.Note), clean(t.Copy.ModuleCall))
	case t.Copy.SaveError != "":
		fmt.Fprintf(w, "the request file could not be saved: %s\n", clean(t.Copy.SaveError))
	}
}

// writeSession prints a session call's JSON-RPC messages (an MCP
// server's; there is no argv, environment or exit), each sanitized.
func writeSession(w io.Writer, c traceCall) {
	n := len(c.Messages) + c.MessagesDropped
	fmt.Fprintf(w, "session:  JSON-RPC, %s (no process call)\n", count(n, "message", "messages"))
	for _, m := range c.Messages {
		dir := "→ sent"
		if m.Direction == runner.FrameReceived {
			dir = "← received"
		}
		head := fmt.Sprintf("%s +%s (%s", dir, time.Duration(m.AtUS)*time.Microsecond, render.HumanBytes(int64(m.Bytes)))
		if len(m.Data) < m.Bytes {
			head += fmt.Sprintf(", first %s shown", render.HumanBytes(int64(len(m.Data))))
		}
		fmt.Fprintf(w, "%s):\n%s\n", head, indent(render.Sanitize(strings.TrimRight(m.Data, "\n"))))
	}
	if c.MessagesDropped > 0 {
		fmt.Fprintf(w, "%s not kept\n", count(c.MessagesDropped, "later message", "later messages"))
	}
	if c.Stderr != "" {
		fmt.Fprintf(w, "stderr:\n%s\n", indent(render.Sanitize(strings.TrimRight(c.Stderr, "\n"))))
	}
}
