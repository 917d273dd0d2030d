package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/runner"
)

// progress routes a notifications/progress to the call whose request id
// is its token: a percent when the server gave a total, and its message.
// It runs on the session's reader (recordingConn.Read), so every
// notification the server sent before its answer reaches the call before
// the call returns: the SDK's own handlers run on another goroutine,
// which the answer can overtake.
func (d *Driver) progress(raw json.RawMessage) {
	var p sdk.ProgressNotificationParams
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	tok := fmt.Sprint(p.ProgressToken)
	for _, f := range d.calls() {
		if f.token != tok {
			continue
		}
		ev := &runner.Progress{Message: p.Message}
		if p.Total > 0 {
			pct := min(max(p.Progress/p.Total*100, 0), 100)
			ev.Percent = &pct
		}
		f.call.Emit(runner.Event{Progress: ev})
	}
}

// log reports a notifications/message to the newest call in flight (the
// stderr pane shows it); one outside any call is dropped. Like progress,
// it runs on the session's reader.
func (d *Driver) log(raw json.RawMessage) {
	var p sdk.LoggingMessageParams
	f := d.latest()
	if f == nil || json.Unmarshal(raw, &p) != nil {
		return
	}
	text, ok := p.Data.(string)
	if !ok {
		b, _ := json.Marshal(p.Data)
		text = string(b)
	}
	if p.Logger != "" {
		text = p.Logger + ": " + text
	}
	f.call.Emit(runner.Event{Log: &runner.LogLine{Level: string(p.Level), Text: text}})
}

// elicit answers an elicitation/create through the newest call in
// flight's Call.Elicit (the host bounds and validates it; the cockpit
// opens a form built from the requested schema). Without a call in
// flight, or for a URL elicitation, it declines.
func (d *Driver) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	f := d.latest()
	if f == nil || req.Params == nil || req.Params.Mode == "url" {
		return &sdk.ElicitResult{Action: string(runner.ElicitDecline)}, nil
	}
	// The question ends with the call: a cancelled call cancels it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(f.ctx, cancel)
	defer stop()
	e := runner.Elicitation{Message: req.Params.Message}
	if req.Params.RequestedSchema != nil {
		b, err := json.Marshal(req.Params.RequestedSchema)
		if err != nil {
			return &sdk.ElicitResult{Action: string(runner.ElicitDecline)}, nil
		}
		e.Schema = b
	}
	ans, err := f.call.Elicit(ctx, e)
	if err != nil || ans.Action != runner.ElicitAccept {
		act := ans.Action
		if act == "" {
			act = runner.ElicitCancel
		}
		return &sdk.ElicitResult{Action: string(act)}, nil
	}
	var content map[string]any
	if err := json.Unmarshal(ans.Content, &content); err != nil {
		return &sdk.ElicitResult{Action: string(runner.ElicitCancel)}, nil
	}
	return &sdk.ElicitResult{Action: string(runner.ElicitAccept), Content: content}, nil
}

// recordingTransport hands every JSON-RPC message of the session to the
// recorders of the calls in flight (the raw exchange), as the SDK's
// LoggingTransport tees them, but as frames.
type recordingTransport struct {
	inner sdk.Transport
	d     *Driver
}

// Connect implements sdk.Transport.
func (t *recordingTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: c, d: t.d}, nil
}

// recordingConn records what passes through its Connection.
type recordingConn struct {
	sdk.Connection
	d *Driver
	// lists follows list requests and list_changed (listchanged.go).
	lists listTracker
}

// Read implements sdk.Connection.
func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if err != nil {
		return m, err
	}
	c.d.record(runner.FrameReceived, m)
	if r, ok := m.(*jsonrpc.Response); ok {
		c.d.noteResult(r)
		c.d.keepToolSchemas(r.Result)
	}
	c.d.noteTaskTools(m)
	c.lists.received(c.d, m)
	if r, ok := m.(*jsonrpc.Request); ok && !r.ID.IsValid() {
		switch r.Method {
		case "notifications/progress":
			c.d.progress(r.Params)
		case "notifications/message":
			c.d.log(r.Params)
		}
	}
	return m, nil
}

// Write implements sdk.Connection. The frame is recorded before it is
// written, so the exchange keeps the order the server saw: an answer or
// a notification can arrive (and be recorded) before Write returns.
func (c *recordingConn) Write(ctx context.Context, m jsonrpc.Message) error {
	c.d.record(runner.FrameSent, m)
	if r, ok := m.(*jsonrpc.Request); ok && (r.Method == "tools/call" || r.Method == "resources/read" || r.Method == "prompts/get") {
		c.d.noteCall(r)
	}
	c.lists.sent(m)
	return c.Connection.Write(ctx, m)
}

// record encodes m once for every call in flight that records.
func (d *Driver) record(dir runner.FrameDirection, m jsonrpc.Message) {
	var data []byte
	for _, f := range d.calls() {
		if !f.call.Recording() {
			continue
		}
		if data == nil {
			b, err := jsonrpc.EncodeMessage(m)
			if err != nil {
				return
			}
			data = b
		}
		f.call.Record(runner.Frame{Direction: dir, Kind: runner.FrameJSONRPC, Data: data})
	}
}

// toolSchemas are one tool's schemas as the server wrote them.
type toolSchemas struct{ in, out json.RawMessage }

// keepToolSchemas keeps, while list runs, each tool's inputSchema and
// outputSchema bytes from a tools/list result: the SDK decodes them into
// Go maps, which lose the order the server wrote properties in, and a
// form shows them in that order. A result that is not a tool list adds
// nothing.
func (d *Driver) keepToolSchemas(result json.RawMessage) {
	d.mu.Lock()
	listing := d.listed != nil
	d.mu.Unlock()
	if !listing || len(result) == 0 {
		return
	}
	var page struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &page) != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, t := range page.Tools {
		if d.listed == nil || len(d.listed) > MaxTools {
			return
		}
		d.listed[t.Name] = toolSchemas{in: t.InputSchema, out: t.OutputSchema}
	}
}
