package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/schema"
)

// maxElicitTries is how many times a terminal prompt asks again for an
// answer that breaks the question's schema before answering cancel.
const maxElicitTries = 3

// elicitAsker answers a module's questions in the middle of `modbay
// invoke` (an MCP server's elicitation/create, runner.Elicitor): with
// --elicit-input it accepts every question with that value; on a
// terminal it asks in plain prompts on stderr, reading answers from
// standard input; otherwise it declines and says so on stderr.
type elicitAsker struct {
	// in is where typed answers are read (standard input), errOut where
	// questions and notes are written (stderr).
	in     io.Reader
	errOut io.Writer
	// terminal is true when both are a terminal (a person can answer).
	terminal bool
	// value is --elicit-input's JSON value, nil when not given.
	value json.RawMessage
	// sampling is --sampling-input's answer ({"reply": text}), nil when
	// not given.
	sampling json.RawMessage
	// from names who asks: the module's id, module text.
	from string
	// lines carries standard input line by line once the first prompt
	// needs it; its goroutine reads until end of input.
	lines chan string
}

// elicitor returns the runner.Elicitor of an invoke of module id from.
func (o *InvokeOptions) elicitor(from string, value, sampling json.RawMessage) runner.Elicitor {
	a := &elicitAsker{in: o.IO.In, errOut: o.IO.ErrOut, value: value, sampling: sampling, from: from,
		terminal: o.IO.IsTerminal(o.IO.In) && o.IO.IsTerminal(o.IO.ErrOut)}
	return a.ask
}

// ask implements runner.Elicitor (the host bounds the request and checks
// an accepted answer against the schema again).
func (a *elicitAsker) ask(ctx context.Context, e runner.Elicitation) (runner.ElicitAnswer, error) {
	switch {
	case e.Sampling != nil:
		return a.sample(ctx, e)
	case e.URL != "":
		return a.openURL(ctx, e)
	}
	w := a.errOut
	fmt.Fprintf(w, "%s asks mid-call: %s\n", clean(a.from), render.SanitizeLine(e.Message))
	if a.value != nil {
		if len(e.Schema) > 0 {
			v, err := schema.ValidateInput(e.Schema, a.value)
			if err != nil || len(v) > 0 {
				fmt.Fprintf(w, "modbay: --elicit-input does not match the question's schema (%s); answered cancel\n", problems(v, err))
				return runner.ElicitAnswer{Action: runner.ElicitCancel}, nil
			}
		}
		fmt.Fprintln(w, "modbay: answered accept with --elicit-input")
		return runner.ElicitAnswer{Action: runner.ElicitAccept, Content: a.value}, nil
	}
	if !a.terminal {
		fmt.Fprintln(w, "modbay: declined: no terminal to ask on (pass --elicit-input JSON to answer it)")
		return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
	}
	for {
		line, ok := a.prompt(ctx, "answer? [a]ccept, [d]ecline, [c]ancel: ")
		switch {
		case !ok:
			return runner.ElicitAnswer{Action: runner.ElicitCancel}, ctx.Err()
		case line == "a" || line == "accept":
			return a.accept(ctx, e)
		case line == "d" || line == "decline":
			return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
		case line == "c" || line == "cancel":
			return runner.ElicitAnswer{Action: runner.ElicitCancel}, nil
		}
	}
}

// accept asks for the answer field by field (MCP asks for a flat object of
// strings, numbers, booleans and choices; any other field is typed as
// JSON), checks it against the schema and asks again, at most
// maxElicitTries times, while it breaks it.
func (a *elicitAsker) accept(ctx context.Context, e runner.Elicitation) (runner.ElicitAnswer, error) {
	cancel := runner.ElicitAnswer{Action: runner.ElicitCancel}
	fields := elicitFields(e.Schema)
	for range maxElicitTries {
		var buf bytes.Buffer
		buf.WriteByte('{')
		for _, f := range fields {
			v, ok, err := a.field(ctx, f)
			if err != nil {
				return cancel, err
			}
			if !ok {
				continue
			}
			if buf.Len() > 1 {
				buf.WriteByte(',')
			}
			k, _ := modproto.EncodeJSON(f.name)
			buf.Write(k)
			buf.WriteByte(':')
			buf.Write(v)
		}
		buf.WriteByte('}')
		content := json.RawMessage(buf.Bytes())
		if len(e.Schema) == 0 {
			return runner.ElicitAnswer{Action: runner.ElicitAccept, Content: content}, nil
		}
		v, err := schema.ValidateInput(e.Schema, content)
		if err == nil && len(v) == 0 {
			return runner.ElicitAnswer{Action: runner.ElicitAccept, Content: content}, nil
		}
		fmt.Fprintf(a.errOut, "modbay: that answer does not match the question's schema (%s)\n", problems(v, err))
	}
	fmt.Fprintln(a.errOut, "modbay: answered cancel")
	return cancel, nil
}

// field asks for one field: its JSON value, or ok false when left out
// (an empty line on an optional field). A value that does not read as
// its type is asked again.
func (a *elicitAsker) field(ctx context.Context, f elicitField) (json.RawMessage, bool, error) {
	for {
		line, ok := a.prompt(ctx, f.prompt())
		if !ok {
			return nil, false, ctx.Err()
		}
		if line == "" && !f.required {
			return nil, false, nil
		}
		if v, ok := f.read(line); ok {
			return v, true, nil
		}
		fmt.Fprintf(a.errOut, "modbay: not a %s\n", f.kind())
	}
}

// prompt writes p to stderr and reads one line from standard input,
// trimmed; false at end of input or when ctx ends first.
func (a *elicitAsker) prompt(ctx context.Context, p string) (string, bool) {
	l, ok := a.promptRaw(ctx, p)
	return strings.TrimSpace(l), ok
}

// promptRaw is prompt without the trimming: the line as typed.
func (a *elicitAsker) promptRaw(ctx context.Context, p string) (string, bool) {
	if a.lines == nil {
		// The reader's goroutine lives until standard input ends: a read
		// cannot be interrupted, and the process ends with the invoke.
		a.lines = make(chan string)
		go func(lines chan<- string) {
			sc := bufio.NewScanner(a.in)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}(a.lines)
	}
	io.WriteString(a.errOut, p)
	select {
	case l, ok := <-a.lines:
		return strings.TrimSuffix(l, "\r"), ok
	case <-ctx.Done():
		fmt.Fprintln(a.errOut)
		return "", false
	}
}

// problems is a schema check's outcome as one line.
func problems(v interface{ Error() string }, err error) string {
	if err != nil {
		return clean(err.Error())
	}
	return clean(v.Error())
}

// elicitField is one property of a question's schema, as a prompt.
type elicitField struct {
	name, title, desc, typ string
	enum                   []json.RawMessage
	required               bool
}

// elicitFields lists the properties of an object schema in the order the
// schema gives them (schema.Doc, references resolved); a schema that is
// not a JSON object with properties asks for none.
func elicitFields(raw json.RawMessage) []elicitField {
	d, err := schema.Parse(raw)
	if err != nil {
		return nil
	}
	root := d.Effective(d.Root())
	var out []elicitField
	for _, p := range root.Props {
		e := d.Effective(p.Schema)
		f := elicitField{name: p.Name, title: e.Title, desc: e.Description, enum: e.Enum, required: slices.Contains(root.Required, p.Name)}
		if len(e.Types) == 1 {
			f.typ = e.Types[0]
		}
		out = append(out, f)
	}
	return out
}

// kind names what the field reads, for its prompt.
func (f elicitField) kind() string {
	switch {
	case len(f.enum) > 0:
		return "choice"
	case f.typ == "string" || f.typ == "number" || f.typ == "integer" || f.typ == "boolean":
		return f.typ
	}
	return "JSON value"
}

// prompt is the field's question: name, title, description, kind, its
// choices and whether an empty line leaves it out (module text, sanitized).
func (f elicitField) prompt() string {
	var b strings.Builder
	b.WriteString(clean(f.name))
	if f.title != "" && f.title != f.name {
		b.WriteString(" (" + clean(f.title) + ")")
	}
	if f.desc != "" {
		b.WriteString(": " + clean(f.desc))
	}
	b.WriteString(" [" + f.kind())
	if len(f.enum) > 0 {
		var cs []string
		for _, c := range f.enum {
			cs = append(cs, clean(choiceText(c)))
		}
		b.WriteString(": " + strings.Join(cs, ", "))
	}
	if f.typ == "boolean" {
		b.WriteString(" y/n")
	}
	if !f.required {
		b.WriteString(", empty leaves it out")
	}
	b.WriteString("]: ")
	return b.String()
}

// choiceText is a choice as typed: a string's text, else its JSON.
func choiceText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	return string(c)
}

// read turns a typed line into the field's JSON value.
func (f elicitField) read(line string) (json.RawMessage, bool) {
	if len(f.enum) > 0 {
		for _, c := range f.enum {
			if choiceText(c) == line {
				return c, true
			}
		}
		return nil, false
	}
	switch f.typ {
	case "string":
		b, _ := modproto.EncodeJSON(line)
		return b, true
	case "boolean":
		switch strings.ToLower(line) {
		case "y", "yes", "true":
			return json.RawMessage(`true`), true
		case "n", "no", "false":
			return json.RawMessage(`false`), true
		}
		return nil, false
	case "integer":
		if _, err := strconv.ParseInt(line, 10, 64); err != nil {
			return nil, false
		}
		return json.RawMessage(line), true
	case "number":
		if _, err := strconv.ParseFloat(line, 64); err != nil || !json.Valid([]byte(line)) {
			return nil, false
		}
		return json.RawMessage(line), true
	}
	if !json.Valid([]byte(line)) {
		return nil, false
	}
	return json.RawMessage(line), true
}

// maxSamplingLines bounds the lines of one sampling message printed.
const maxSamplingLines = 40

// sample answers a sampling request: it prints the request (sanitized,
// each message cut at maxSamplingLines), then answers with
// --sampling-input, or on a terminal reads the reply the person types
// (lines up to one holding only "."; an empty first line declines),
// else declines.
func (a *elicitAsker) sample(ctx context.Context, e runner.Elicitation) (runner.ElicitAnswer, error) {
	w, sr := a.errOut, e.Sampling
	fmt.Fprintf(w, "%s asks for a model's reply mid-call (sampling; modbay calls no model, a person writes it)\n", clean(a.from))
	if sr.SystemPrompt != "" {
		fmt.Fprintf(w, "  system prompt: %s\n", render.SanitizeLine(sr.SystemPrompt))
	}
	if len(sr.ModelHints) > 0 {
		hints := make([]string, len(sr.ModelHints))
		for i, h := range sr.ModelHints {
			hints[i] = clean(h)
		}
		fmt.Fprintf(w, "  models preferred: %s\n", strings.Join(hints, ", "))
	}
	for _, k := range []string{"cost", "speed", "intelligence"} {
		if v, ok := sr.Priorities[k]; ok && v > 0 {
			fmt.Fprintf(w, "  %s priority: %.2f\n", k, v)
		}
	}
	if sr.MaxTokens > 0 {
		fmt.Fprintf(w, "  at most %d tokens\n", sr.MaxTokens)
	}
	for _, m := range sr.Messages {
		lines := strings.Split(render.Sanitize(m.Text), "\n")
		if len(lines) > maxSamplingLines {
			lines = append(lines[:maxSamplingLines], "…")
		}
		fmt.Fprintf(w, "  %s: %s\n", clean(m.Role), strings.Join(lines, "\n    "))
	}
	switch {
	case a.sampling != nil:
		fmt.Fprintln(w, "modbay: answered with --sampling-input")
		return runner.ElicitAnswer{Action: runner.ElicitAccept, Content: a.sampling}, nil
	case !a.terminal:
		fmt.Fprintln(w, "modbay: declined: no terminal to ask on (pass --sampling-input TEXT|@FILE|@- to answer it)")
		return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
	}
	line, ok := a.prompt(ctx, "reply, sent as the model's message (end it with a line holding only \".\"; an empty first line declines):\n")
	switch {
	case !ok:
		return runner.ElicitAnswer{Action: runner.ElicitCancel}, ctx.Err()
	case line == "":
		return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
	}
	// The first line was trimmed; the rest are kept as typed.
	reply := []string{line}
	size := len(line)
	for line != "." {
		raw, ok := a.promptRaw(ctx, "")
		if !ok && ctx.Err() != nil {
			return runner.ElicitAnswer{Action: runner.ElicitCancel}, ctx.Err()
		}
		if !ok || raw == "." {
			// The end mark, or standard input ended: the reply is what came.
			break
		}
		if size += len(raw) + 1; size > maxInputFileBytes {
			fmt.Fprintf(w, "modbay: the reply is cut at %d bytes\n", maxInputFileBytes)
			break
		}
		reply = append(reply, raw)
	}
	if reply[0] == "." {
		return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
	}
	content, _ := json.Marshal(map[string]string{"reply": strings.Join(reply, "\n")})
	return runner.ElicitAnswer{Action: runner.ElicitAccept, Content: content}, nil
}

// openURL answers a URL elicitation: the URL is printed (sanitized, its
// host named apart), never opened; on a terminal the person accepts
// once done, declines or cancels; without one it declines.
func (a *elicitAsker) openURL(ctx context.Context, e runner.Elicitation) (runner.ElicitAnswer, error) {
	w := a.errOut
	fmt.Fprintf(w, "%s asks you to open a URL mid-call: %s\n", clean(a.from), render.SanitizeLine(e.Message))
	fmt.Fprintf(w, "  %s\n  (host: %s)\n", render.SanitizeLine(e.URL), render.SanitizeLine(urlHost(e.URL)))
	if !a.terminal {
		fmt.Fprintln(w, "modbay: declined: no terminal to ask on")
		return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
	}
	for {
		line, ok := a.prompt(ctx, "open it in your browser, then [a]ccept, [d]ecline or [c]ancel: ")
		switch {
		case !ok:
			return runner.ElicitAnswer{Action: runner.ElicitCancel}, ctx.Err()
		case line == "a" || line == "accept":
			return runner.ElicitAnswer{Action: runner.ElicitAccept}, nil
		case line == "d" || line == "decline":
			return runner.ElicitAnswer{Action: runner.ElicitDecline}, nil
		case line == "c" || line == "cancel":
			return runner.ElicitAnswer{Action: runner.ElicitCancel}, nil
		}
	}
}

// urlHost is raw's host, "" when it does not parse.
func urlHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}
