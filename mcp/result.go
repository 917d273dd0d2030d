package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/schema"
)

// CodeToolError is the error code of a tool result with isError: true:
// the tool ran and failed (a module error, exit 1).
const CodeToolError = "tool_error"

// CodeMCPError is the host verdict of a call the server answered with a
// JSON-RPC error (an unknown tool, invalid params): Detail carries the
// JSON-RPC code and message.
const CodeMCPError = "host.mcp_error"

// CodeSessionFailed is the host verdict of a call whose session had
// started and then failed (the server exited or the connection broke
// mid-call); a server that never started is modproto.CodeHostSpawnFailed.
const CodeSessionFailed = "host.session_failed"

// maxErrorMessage bounds an isError message taken from the tool's text.
const maxErrorMessage = 500

// replyOf turns a tools/call result, as the server sent it (raw JSON),
// into an invoke envelope answering req and its content blocks: each
// block is judged on its own (blockOf), so one that cannot be decoded is
// a flagged entry with its reason and the rest is still delivered.
// structuredContent, passed through as sent, is the envelope's result,
// checked against the tool's outputSchema (a failure is a warning naming
// each violation), and beside is then {"content": [entries], "_meta": …}
// (runner.Reply.Beside, for the result screen); without it the result is {"content": [entries],
// "_meta": …}, each entry the block's own fields as sent with its bulk
// (text, data, resource) replaced by "artifact" (or "refused": reason).
// isError makes an error envelope (CodeToolError) whose message is the
// first text block and whose details keep the entries. A result that is
// not a JSON object with a content array is a host verdict (CodeMCPError).
func replyOf(module string, req modproto.Request, raw json.RawMessage, outputSchema json.RawMessage) (env []byte, blocks []runner.ContentBlock, beside json.RawMessage, herr *runner.HostError) {
	var res struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		IsError           bool              `json:"isError"`
		Meta              json.RawMessage   `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, nil, nil, &runner.HostError{Code: CodeMCPError, Detail: "the tools/call result is not a result object: " + oneLine(err.Error())}
	}
	e := &modproto.Envelope{
		Protocol: modproto.ProtocolID, Module: module, Operation: modproto.OperationInvoke, RequestID: req.RequestID,
		Warnings: []string{}, Execution: modproto.Execution{Artifacts: []modproto.Artifact{}},
	}
	entries := make([]json.RawMessage, 0, len(res.Content))
	firstText := ""
	for i, c := range res.Content {
		j := blockOf(i, c)
		e.Warnings = append(e.Warnings, j.warnings...)
		if j.block != nil {
			blocks = append(blocks, *j.block)
		}
		if j.text != nil && firstText == "" {
			firstText = *j.text
		}
		entries = append(entries, j.entry)
	}
	content := jsonArray(entries)
	if res.IsError {
		msg := summaryOf(firstText)
		if msg == "" {
			msg = "the tool reported an error without text"
		}
		if len(msg) > maxErrorMessage {
			// Cut at a character, marked: the host's masking drops the
			// part of a secret a cut marked "…" leaves (docs/protocol.md §4).
			cut := maxErrorMessage
			for cut > 0 && !utf8.RuneStart(msg[cut]) {
				cut--
			}
			msg = msg[:cut] + "…"
		}
		details := map[string]any{"is_error": true, "content": content}
		if isJSON(res.Meta) {
			details["_meta"] = res.Meta
		}
		e.Error = &modproto.Error{Code: CodeToolError, Message: msg, Details: details}
	} else {
		var result json.RawMessage
		if isJSON(res.StructuredContent) {
			result = res.StructuredContent
			if outputSchema != nil {
				e.Warnings = append(e.Warnings, checkOutput(outputSchema, result)...)
			}
		} else if outputSchema != nil {
			e.Warnings = append(e.Warnings, "the tool declares an outputSchema but sent no structuredContent")
		}
		rest := json.RawMessage(`{"content":` + string(content))
		if isJSON(res.Meta) {
			rest = append(rest, `,"_meta":`...)
			rest = append(rest, res.Meta...)
		}
		rest = append(rest, '}')
		if result == nil {
			result = rest
		} else {
			beside = rest
		}
		e.OK, e.Result = true, result
	}
	out, err := modproto.EncodeJSON(e)
	if err != nil {
		return nil, nil, nil, &runner.HostError{Code: CodeMCPError, Detail: "the tools/call result: " + oneLine(err.Error())}
	}
	return out, blocks, beside, nil
}

// isJSON reports whether m is present and not JSON null.
func isJSON(m json.RawMessage) bool {
	return len(m) > 0 && string(m) != "null"
}

// jsonArray is ms as one JSON array, each element as it is.
func jsonArray(ms []json.RawMessage) json.RawMessage {
	b := []byte{'['}
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	return append(b, ']')
}

// checkOutput validates structuredContent against outputSchema and says
// what is wrong, one warning per violation; nil when it is valid.
func checkOutput(outputSchema, content json.RawMessage) []string {
	v, err := schema.ValidateInput(outputSchema, content)
	if err != nil {
		return []string{"the tool's outputSchema does not compile: " + oneLine(err.Error())}
	}
	var w []string
	for _, e := range v {
		p := e.Path
		if p == "" {
			p = "(root)"
		}
		w = append(w, fmt.Sprintf("structuredContent breaks the tool's outputSchema at %s: %s", p, e.Detail))
	}
	return w
}

// judged is one content block as blockOf judged it: the block to stage
// (nil when refused or not shown), its result entry, what the person is
// warned of, and its text for a text block.
type judged struct {
	block    *runner.ContentBlock
	entry    json.RawMessage
	warnings []string
	text     *string
}

// wireBlock is the part of a content block modbay reads; every other
// field stays in the block's entry as the server sent it.
type wireBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MIMEType string `json:"mimeType"`
	URI      string `json:"uri"`
	Name     string `json:"name"`
	Title    string `json:"title"`
	Resource *struct {
		URI      string  `json:"uri"`
		MIMEType string  `json:"mimeType"`
		Text     *string `json:"text"`
		Blob     *string `json:"blob"`
	} `json:"resource"`
}

// blockOf judges content block i, raw as the server sent it. A text
// block is text/plain (application/json when the whole text is a JSON
// object or array), byte for byte; an image or audio block is its
// decoded data (base64, standard or URL-safe, padded or not, or a data:
// URL; anything but standard base64 is warned of), staged under the type
// its bytes are when that differs from the declared one; an embedded
// resource is its text or blob under its mimeType; a resource link is
// the block's own JSON as sent. A block that cannot be decoded, or of a
// type modbay does not know, is refused: its entry says why.
func blockOf(i int, raw json.RawMessage) judged {
	id := fmt.Sprintf("content-%d", i)
	mk := func(kind, media, title string, data []byte) *runner.ContentBlock {
		return &runner.ContentBlock{
			Artifact: modproto.Artifact{ID: id, Kind: kind, MediaType: media, Title: render.SanitizeLine(title), Path: id + extOf(media)},
			Data:     data,
		}
	}
	refuse := func(typ, why string) judged {
		return judged{
			entry:    withFields(raw, []string{"text", "data", "blob", "resource"}, "refused", why),
			warnings: []string{fmt.Sprintf("content block %d (%s): %s", i, render.SanitizeLine(typ), why)},
		}
	}
	var w wireBlock
	if err := json.Unmarshal(raw, &w); err != nil {
		return judged{entry: json.RawMessage(`{"refused":` + quote("not a content block: "+oneLine(err.Error())) + `}`),
			warnings: []string{fmt.Sprintf("content block %d: not a content block: %s", i, oneLine(err.Error()))}}
	}
	staged := func(b *runner.ContentBlock, warn []string, text *string) judged {
		return judged{block: b, entry: withFields(raw, []string{"text", "data", "blob", "resource"}, "artifact", id), warnings: warn, text: text}
	}
	switch w.Type {
	case "text":
		media := "text/plain"
		if t := strings.TrimSpace(w.Text); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
			media = "application/json"
		}
		b := mk(KindText, media, "", []byte(w.Text))
		b.HostWritten = true // a tool's text is its result's words: echoed secrets are masked
		return staged(b, nil, &w.Text)
	case "image", "audio":
		data, declared, warn, err := decodeData(w.Data)
		if err != nil {
			return refuse(w.Type, err.Error())
		}
		kind, def := KindImage, "image/png"
		if w.Type == "audio" {
			kind, def = KindAudio, "audio/wav"
		}
		media := mediaOr(firstNonEmpty(w.MIMEType, declared), def)
		var warns []string
		if warn != "" {
			warns = append(warns, fmt.Sprintf("content block %d (%s): %s", i, w.Type, warn))
		}
		if sniffed := sniff(data, w.Type); sniffed != "" && sniffed != baseType(media) {
			warns = append(warns, fmt.Sprintf("content block %d (%s): declared %s, its bytes are %s: staged as %s",
				i, w.Type, render.SanitizeLine(media), sniffed, sniffed))
			media = sniffed
		}
		return staged(mk(kind, media, "", data), warns, nil)
	case "resource":
		r := w.Resource
		if r == nil {
			return refuse(w.Type, "the block has no resource")
		}
		if r.Blob != nil {
			data, _, warn, err := decodeData(*r.Blob)
			if err != nil {
				return refuse(w.Type, "blob: "+err.Error())
			}
			var warns []string
			if warn != "" {
				warns = append(warns, fmt.Sprintf("content block %d (resource): blob: %s", i, warn))
			}
			return staged(mk(KindResource, mediaOr(r.MIMEType, "application/octet-stream"), r.URI, data), warns, nil)
		}
		text := ""
		if r.Text != nil {
			text = *r.Text
		}
		return staged(mk(KindResource, mediaOr(r.MIMEType, "text/plain"), r.URI, []byte(text)), nil, nil)
	case "resource_link":
		b := mk(KindLink, "application/json", firstNonEmpty(w.Title, w.Name, w.URI), raw)
		b.HostWritten = true // its name, title, uri and description mask echoed secrets
		return staged(b, nil, nil)
	}
	return refuse(w.Type, "type "+strconv.Quote(w.Type)+" is not shown")
}

// decodeData decodes a block's data: standard base64, or (with a
// warning naming what it was) URL-safe or unpadded base64, or a data:
// URL, whose media type is returned as declared.
func decodeData(s string) (data []byte, declared, warning string, err error) {
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		meta, payload, ok := strings.Cut(rest, ",")
		if !ok {
			return nil, "", "", errors.New("a data: URL without a comma")
		}
		mt, isB64 := strings.CutSuffix(meta, ";base64")
		declared = mt
		if !isB64 {
			d, err := url.PathUnescape(payload)
			if err != nil {
				return nil, "", "", fmt.Errorf("data: URL: %v", err)
			}
			return []byte(d), declared, "sent as a data: URL, not base64", nil
		}
		d, how, err := decodeBase64(payload)
		if err != nil {
			return nil, "", "", fmt.Errorf("data: URL: %w", err)
		}
		return d, declared, "sent as a data: URL" + strings.TrimPrefix(how, "base64"), nil
	}
	d, how, err := decodeBase64(s)
	return d, "", how, err
}

// decodeBase64 decodes standard base64 (how is ""), else URL-safe or
// unpadded base64 (how says which).
func decodeBase64(s string) (data []byte, how string, err error) {
	if d, err := base64.StdEncoding.DecodeString(s); err == nil {
		return d, "", nil
	} else if d, err2 := base64.RawStdEncoding.DecodeString(s); err2 == nil {
		return d, "base64 without padding (decoded anyway)", nil
	} else if d, err2 := base64.URLEncoding.DecodeString(s); err2 == nil {
		return d, "URL-safe base64, not standard (decoded anyway)", nil
	} else if d, err2 := base64.RawURLEncoding.DecodeString(s); err2 == nil {
		return d, "URL-safe base64 without padding, not standard (decoded anyway)", nil
	} else {
		return nil, "", fmt.Errorf("the data is not base64: %v", err)
	}
}

// sniff is the media type data's bytes are, when it is one of typ
// ("image" or "audio") that the bytes show; "" when they do not say.
func sniff(data []byte, typ string) string {
	mt := baseType(http.DetectContentType(data))
	if mt == "audio/wave" {
		mt = "audio/wav"
	}
	if strings.HasPrefix(mt, typ+"/") {
		return mt
	}
	return ""
}

// baseType is media type m without parameters, lower case.
func baseType(m string) string {
	mt, _, err := mime.ParseMediaType(m)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(m))
	}
	return mt
}

// withFields is JSON object obj with its keys in the order sent, but
// without the keys in drop, and with key k set to string v at the end.
// A value that is not an object is kept whole under "block".
func withFields(obj json.RawMessage, drop []string, k, v string) json.RawMessage {
	out := []byte{'{'}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return json.RawMessage(`{"block":` + string(obj) + `,` + quote(k) + `:` + quote(v) + `}`)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := t.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			break
		}
		if slices.Contains(drop, key) || key == k {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, quote(key)...)
		out = append(out, ':')
		out = append(out, val...)
	}
	if len(out) > 1 {
		out = append(out, ',')
	}
	out = append(out, quote(k)+":"+quote(v)...)
	return append(out, '}')
}

// quote is s as a JSON string, with &, < and > as typed.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// mediaOr is m with parameters kept, or def when m is empty or not a
// media type.
func mediaOr(m, def string) string {
	if _, _, err := mime.ParseMediaType(m); err != nil {
		return def
	}
	return m
}

// extOf is a file extension for a media type ("" when none is known), so
// a staged block opens in the right program.
func extOf(media string) string {
	mt, _, _ := mime.ParseMediaType(media)
	switch mt {
	case "text/markdown":
		return ".md"
	case "text/plain":
		return ".txt"
	case "application/json":
		return ".json"
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "image/svg+xml":
		return ".svg"
	case "audio/wav", "audio/x-wav":
		return ".wav"
	case "audio/mpeg":
		return ".mp3"
	}
	return ""
}

// callFailure is the host verdict of a tools/call that returned a Go
// error: a JSON-RPC error keeps its code (CodeMCPError); anything else
// means the session, which had started, failed (the server died
// mid-call): CodeSessionFailed, not a spawn failure.
func callFailure(err error) *runner.HostError {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return &runner.HostError{Code: CodeMCPError, Detail: fmt.Sprintf("JSON-RPC error %d: %s", we.Code, oneLine(we.Message))}
	}
	return &runner.HostError{Code: CodeSessionFailed, Detail: "the server's session failed: " + oneLine(err.Error())}
}

// noteCall ties a tools/call request to the call in flight whose
// progress token it carries, so noteResult can keep its result.
func (d *Driver) noteCall(r *jsonrpc.Request) {
	var p struct {
		Meta struct {
			ProgressToken any `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(r.Params, &p) != nil {
		return
	}
	tok, ok := p.Meta.ProgressToken.(string)
	if !ok {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range d.inflight {
		if f.token == tok {
			f.rpcID = r.ID.Raw()
		}
	}
}

// noteResult keeps a tools/call result, as sent, for the call it answers.
func (d *Driver) noteResult(r *jsonrpc.Response) {
	if r.Error != nil || r.Result == nil {
		return
	}
	id := r.ID.Raw()
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, f := range d.inflight {
		if f.rpcID != nil && f.rpcID == id && f.result == nil {
			f.result = slices.Clone(r.Result)
		}
	}
}
