package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"modbay/runner"
)

// TestTraceOfASessionCall: invoke --trace of an MCP tool prints the
// call's JSON-RPC messages (sanitized), not blank argv, env and stdout,
// and --json carries them as strings.
func TestTraceOfASessionCall(t *testing.T) {
	x := runner.NewExchange()
	rec := x.Recorder()
	const id = "req_00000000000000000000000000000001"
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	rec(runner.Frame{RequestID: id, At: at, Direction: runner.FrameSent, Kind: runner.FrameJSONRPC, Data: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`)})
	rec(runner.Frame{RequestID: id, At: at.Add(3 * time.Millisecond), Direction: runner.FrameReceived, Kind: runner.FrameJSONRPC,
		Data: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi` + "\x1b]52;c;AAAA\x07" + `"}]}}`)})
	tr := traceOut{Calls: traceCalls(x.Calls())}
	var buf bytes.Buffer
	writeTrace(&buf, tr)
	out := buf.String()
	for _, want := range []string{"session:  JSON-RPC, 2 messages", "→ sent +0s", `"method":"tools/call"`, "← received +3ms", `"text":"hi`} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "argv:") || strings.Contains(out, "stdout (") || strings.Contains(out, "\x1b]52") {
		t.Errorf("trace shows process fields or a server's escape:\n%s", out)
	}
	raw, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"messages":[{"direction":"sent","at_us":0,"bytes":46,"data":"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\"}"}`) {
		t.Errorf("--json trace:\n%s", raw)
	}
}
