package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/config"
	"modbay/runner"
	"modbay/schema"
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

// log keeps a notifications/message in the server's log (Driver.Logs)
// and reports it to the newest call in flight (the run view shows it);
// one between calls is announced to the watchers as a ChangeLog, at most
// once per logQuiet for a burst. Like progress, it runs on the session's
// reader.
func (d *Driver) log(raw json.RawMessage) {
	var p sdk.LoggingMessageParams
	if json.Unmarshal(raw, &p) != nil {
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
	if r := []rune(text); len(r) > maxLogText {
		text = string(r[:maxLogText]) + "…"
	}
	e := LogEntry{At: time.Now(), Level: string(p.Level)}
	d.mu.Lock()
	// Kept and shown beyond the call: the secrets of the calls in flight
	// and of the last one are masked (the run's own events are again).
	echoes := d.lastEchoes
	for _, f := range d.inflight {
		echoes = append(slices.Clip(echoes), f.call.Echoes()...)
	}
	e.Text = schema.MaskCutEchoes(text, echoes)
	e.Gen = d.gen
	d.logs = append(d.logs, e)
	if over := len(d.logs) - MaxKeptLogs; over > 0 {
		d.logs = slices.Delete(d.logs, 0, over)
	}
	d.mu.Unlock()
	if f := d.latest(); f != nil {
		f.call.Emit(runner.Event{Log: &runner.LogLine{Level: e.Level, Text: e.Text}})
		return
	}
	d.announceLog()
}

// logQuiet is how long the announcement of log messages between calls
// waits for more: a burst is one redraw, and its last message is in it.
const logQuiet = 50 * time.Millisecond

// announceLog tells the watchers of a ChangeLog after logQuiet, unless
// one is already due.
func (d *Driver) announceLog() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.logDue {
		return
	}
	d.logDue = true
	time.AfterFunc(logQuiet, func() {
		d.mu.Lock()
		d.logDue = false
		d.mu.Unlock()
		d.announce(runner.Change{Kind: runner.ChangeLog})
	})
}

// MaxKeptLogs bounds the log messages a driver keeps of its server.
const MaxKeptLogs = 500

// maxLogText bounds one kept log message, in runes.
const maxLogText = 4096

// LogEntry is one log message a server sent (MCP notifications/message).
type LogEntry struct {
	At time.Time
	// Level is the server's level name as sent ("info", "error", ...).
	Level string
	// Text is "logger: data" (data as JSON unless a string); raw,
	// sanitize to show.
	Text string
	// Gen is the server process that sent it (one per start).
	Gen int
}

// Logs is a copy of the server's last MaxKeptLogs log messages, oldest
// first, during calls and between them, across restarts.
func (d *Driver) Logs() []LogEntry {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.logs)
}

// RestartMarker is the line LogLines puts between the messages of two
// server processes.
const RestartMarker = "── the server restarted ──"

// LogLines is the server's last n log messages as lines, newest first:
// "15:04:05 level text", raw (sanitize to show), with RestartMarker
// between those of two processes. It does no I/O.
func (d *Driver) LogLines(n int) []string {
	logs := d.Logs()
	logs = logs[max(len(logs)-n, 0):]
	out := make([]string, 0, len(logs))
	for i := len(logs) - 1; i >= 0; i-- {
		e := logs[i]
		if i < len(logs)-1 && logs[i+1].Gen != e.Gen {
			out = append(out, RestartMarker)
		}
		out = append(out, e.At.Local().Format("15:04:05")+" "+e.Level+" "+e.Text)
	}
	return out
}

// LogLevels are MCP's log levels (RFC 5424's), least severe first.
var LogLevels = config.MCPLogLevels

// DefaultLogLevel is the level asked for when neither SetLogLevel nor the
// entry's log_level set one.
const DefaultLogLevel = "info"

// LogLevel is the level the server is asked to log at: SetLogLevel's
// (kept in the server's state file, so a later modbay invoke asks for it
// too), else the entry's log_level, else DefaultLogLevel. It does no I/O.
func (d *Driver) LogLevel() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.logLevel != "":
		return d.logLevel
	case d.srv.LogLevel != "":
		return d.srv.LogLevel
	}
	return DefaultLogLevel
}

// LogsDeclared reports whether the connected server declared MCP's
// logging capability (known false before a session). No I/O.
func (d *Driver) LogsDeclared() (declared, known bool) {
	d.mu.Lock()
	s := d.sess
	d.mu.Unlock()
	if s == nil || s.cs == nil {
		return false, false
	}
	ir := s.cs.InitializeResult()
	return ir != nil && ir.Capabilities != nil && ir.Capabilities.Logging != nil, ir != nil
}

// SetLogLevel asks the server to send log messages at level and above
// (logging/setLevel) and keeps the level for its later sessions, in this
// process and in the server's state file. With no live
// session it is only kept; a server without the logging capability is
// not asked. The error is an unknown level or the server's answer; a
// refused level is not kept, and the refusal is in the server's log.
func (d *Driver) SetLogLevel(ctx context.Context, level string) error {
	if !slices.Contains(LogLevels, level) {
		return fmt.Errorf("log level %q is not one of %s", level, strings.Join(LogLevels, ", "))
	}
	d.mu.Lock()
	prev := d.logLevel
	d.logLevel = level
	s := d.sess
	d.mu.Unlock()
	var err error
	if s != nil {
		if ir := s.cs.InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Logging != nil {
			err = s.cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: sdk.LoggingLevel(level)})
		}
	}
	if err != nil {
		d.mu.Lock()
		d.logLevel = prev
		d.logs = append(d.logs, LogEntry{At: time.Now(), Level: "error", Text: "modbay: the server refused logging/setLevel " + level + ": " + err.Error()})
		if over := len(d.logs) - MaxKeptLogs; over > 0 {
			d.logs = slices.Delete(d.logs, 0, over)
		}
		d.mu.Unlock()
		return err
	}
	d.stateMu.Lock()
	st := d.readState()
	st.LogLevel = level
	d.writeState(st)
	d.stateMu.Unlock()
	return nil
}

// elicit answers an elicitation/create through the newest call in
// flight's Call.Elicit (the host bounds and validates it; the cockpit
// opens a form built from the requested schema, or shows a URL
// elicitation's URL, elicitURL). Without a call in flight it declines.
func (d *Driver) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	f := d.latest()
	if f == nil || req.Params == nil {
		return &sdk.ElicitResult{Action: string(runner.ElicitDecline)}, nil
	}
	// The question ends with the call: a cancelled call cancels it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(f.ctx, cancel)
	defer stop()
	if req.Params.Mode == "url" {
		return d.elicitURL(ctx, f, req.Params)
	}
	e := runner.Elicitation{Message: req.Params.Message}
	if req.Params.RequestedSchema != nil {
		b, err := json.Marshal(req.Params.RequestedSchema)
		if err != nil {
			return &sdk.ElicitResult{Action: string(runner.ElicitDecline)}, nil
		}
		e.Schema = d.originalSchema(b)
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

// maxStrippedSchemas bounds the requested schemas kept with their
// defaults while their question is open.
const maxStrippedSchemas = 16

// withoutDefaults is an elicitation/create's params with every "default"
// taken out of its requestedSchema's properties, the schema as sent kept
// for the question (originalSchema). The SDK fills an accepted answer's
// missing fields from the schema's defaults; the answer must hold only
// what the person set (a default shown, not sent, is the server's to
// apply). Params it cannot read are returned as they came.
func (d *Driver) withoutDefaults(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p["requestedSchema"] == nil {
		return params
	}
	var schema map[string]any
	if json.Unmarshal(p["requestedSchema"], &schema) != nil {
		return params
	}
	props, _ := schema["properties"].(map[string]any)
	stripped := false
	for _, v := range props {
		if prop, ok := v.(map[string]any); ok {
			if _, has := prop["default"]; has {
				delete(prop, "default")
				stripped = true
			}
		}
	}
	if !stripped {
		return params
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return params
	}
	orig := p["requestedSchema"]
	p["requestedSchema"] = b
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	// The handler sees the schema as the SDK re-encodes it: key it so.
	var canon any
	_ = json.Unmarshal(b, &canon)
	key, _ := json.Marshal(canon)
	d.mu.Lock()
	if d.stripped == nil || len(d.stripped) >= maxStrippedSchemas {
		d.stripped = map[string]json.RawMessage{}
	}
	d.stripped[string(key)] = slices.Clone(orig)
	d.mu.Unlock()
	return out
}

// originalSchema is the requested schema as the server sent it, defaults
// included, for the question whose schema withoutDefaults stripped to
// stripped (itself when none was).
func (d *Driver) originalSchema(stripped []byte) json.RawMessage {
	var canon any
	if json.Unmarshal(stripped, &canon) != nil {
		return stripped
	}
	key, _ := json.Marshal(canon)
	d.mu.Lock()
	defer d.mu.Unlock()
	if orig, ok := d.stripped[string(key)]; ok {
		return orig
	}
	return stripped
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
	if r, ok := m.(*jsonrpc.Request); ok && r.ID.IsValid() && r.Method == "elicitation/create" {
		r.Params = c.d.withoutDefaults(r.Params)
	}
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
	err := c.Connection.Write(ctx, m)
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == "notifications/cancelled" {
		for _, f := range c.d.calls() {
			if f.ctx.Err() != nil {
				f.cancelOnce.Do(func() { close(f.cancelSent) })
			}
		}
	}
	return err
}

// Bounds of the start-up frames kept for a session's first call.
const (
	maxStartFrames     = 16
	maxStartFrameBytes = 64 << 10
)

// record encodes m once for every call in flight that records, and keeps
// it while the session starts (dial), for its first call (takeStartFrames).
func (d *Driver) record(dir runner.FrameDirection, m jsonrpc.Message) {
	d.mu.Lock()
	if d.capturing && len(d.startFrames) < maxStartFrames {
		if b, err := jsonrpc.EncodeMessage(m); err == nil && len(b) <= maxStartFrameBytes {
			d.startFrames = append(d.startFrames, runner.Frame{At: time.Now(), Direction: dir, Kind: runner.FrameJSONRPC, Data: b})
		}
	}
	d.mu.Unlock()
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

// toolSchemas are one tool's schemas as the server wrote them, and its
// readOnlyHint as given (nil when absent: the SDK's field is a plain bool,
// which cannot tell a given false from none).
type toolSchemas struct {
	in, out  json.RawMessage
	readOnly *bool
}

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
			Annotations  *struct {
				ReadOnlyHint *bool `json:"readOnlyHint"`
			} `json:"annotations"`
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
		ts := toolSchemas{in: t.InputSchema, out: t.OutputSchema}
		if t.Annotations != nil {
			ts.readOnly = t.Annotations.ReadOnlyHint
		}
		d.listed[t.Name] = ts
	}
}
