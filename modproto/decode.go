package modproto

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// DecodeError is a failure to read a module's stdout as one envelope. Code
// is CodeHostInvalidJSON (not one JSON object, empty included) or
// CodeHostProtocolViolation (non-whitespace after the envelope), docs/protocol.md §5
// outcomes 5 and 6.
type DecodeError struct {
	Code   string
	Detail string
	// Offset is the byte offset in stdout where the problem was found.
	Offset int64
	// Trailing is set when the problem is bytes after the envelope, which
	// start at Offset.
	Trailing bool
}

// Error implements error.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: %s (at byte %d)", e.Code, e.Detail, e.Offset)
}

// envelopeAlias has Envelope's fields without its methods, so UnmarshalJSON
// can use the default decoder.
type envelopeAlias Envelope

// UnmarshalJSON decodes an envelope and records which keys were present, so
// ValidateEnvelope can tell an absent or null "warnings" or "execution" from
// an empty one.
func (e *Envelope) UnmarshalJSON(data []byte) error {
	var seen map[string]json.RawMessage
	if err := json.Unmarshal(data, &seen); err != nil {
		return err
	}
	var a envelopeAlias
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	*e = Envelope(a)
	e.seen = seen
	return nil
}

// has reports whether the decoded envelope carried key with a non-null
// value; an envelope built in Go has every key.
func (e *Envelope) has(key string) bool {
	if e.seen == nil {
		return true
	}
	v, ok := e.seen[key]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// rawKind returns the JSON kind ('{', '[', '"', 't', 'f', 'n', digit) of a
// decoded key, or 0 when absent or built in Go.
func (e *Envelope) rawKind(key string) byte {
	if e.seen == nil {
		return 0
	}
	v := bytes.TrimSpace(e.seen[key])
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

// DecodeEnvelope reads stdout as exactly one JSON object envelope
// (docs/protocol.md §5 outcomes 5–6). Empty output, malformed JSON or a non-object is
// a *DecodeError with CodeHostInvalidJSON; anything but whitespace after
// the object, or an object naming a key twice or in two cases (see
// CheckDuplicateEnvelopeKeys), is a *DecodeError with CodeHostProtocolViolation. The
// envelope's rules are checked separately by ValidateEnvelope. It reads
// stdout in one pass (syntax, keys and nesting together) and decodes only
// the members Envelope has, in time linear in len(stdout).
func DecodeEnvelope(stdout []byte) (*Envelope, error) {
	return DecodeEnvelopeContext(context.Background(), stdout)
}

// DecodeEnvelopeContext is DecodeEnvelope that stops when ctx ends,
// within a few milliseconds at any size: the error is then ctx's
// (errors.Is context.Canceled or context.DeadlineExceeded), not a
// *DecodeError.
func DecodeEnvelopeContext(ctx context.Context, stdout []byte) (*Envelope, error) {
	trimmed := bytes.TrimLeft(stdout, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, &DecodeError{Code: CodeHostInvalidJSON, Detail: "stdout is empty; expected one JSON envelope"}
	}
	lead := int64(len(stdout) - len(trimmed))
	if trimmed[0] != '{' {
		return nil, &DecodeError{Code: CodeHostInvalidJSON, Detail: "stdout does not start with a JSON object", Offset: lead}
	}
	end, keyErr, err := scanValue(ctx, stdout, int(lead), &envelopeKeyRules)
	if errors.Is(err, errSyntax) {
		return nil, envelopeSyntaxError(stdout)
	}
	if err != nil {
		return nil, err
	}
	if rest := bytes.TrimSpace(stdout[end:]); len(rest) > 0 {
		return nil, &DecodeError{Code: CodeHostProtocolViolation,
			Detail: fmt.Sprintf("%d bytes of non-whitespace after the envelope", len(rest)), Offset: int64(end), Trailing: true}
	}
	if keyErr != nil {
		return nil, &DecodeError{Code: CodeHostProtocolViolation, Detail: "envelope breaks docs/protocol.md §6 (one name per key): " + keyErr.Error(), Offset: lead}
	}
	env, err := decodeEnvelopeObject(ctx, stdout[lead:end])
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// One JSON object, but a field of the wrong type: the envelope
		// breaks the rules of docs/protocol.md §6 rather than not being JSON.
		return nil, &DecodeError{Code: CodeHostProtocolViolation, Detail: "envelope has a field of the wrong type: " + err.Error(), Offset: lead}
	}
	return env, nil
}

// envelopeSyntaxError is encoding/json's account of malformed stdout,
// where its Decoder stopped (read only when the scanner refused stdout).
func envelopeSyntaxError(stdout []byte) error {
	dec := json.NewDecoder(bytes.NewReader(stdout))
	var raw json.RawMessage
	err := dec.Decode(&raw)
	if err == nil {
		err = errSyntax // the scanner and encoding/json disagree
	}
	off := dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	return &DecodeError{Code: CodeHostInvalidJSON, Detail: "stdout is not valid JSON: " + err.Error(), Offset: off}
}

// decodeEnvelopeObject decodes obj, one object the scanner accepted, as
// json.Unmarshal into an Envelope would: the members no field takes are
// left out before encoding/json reads the rest, and the result is copied
// as it came.
func decodeEnvelopeObject(ctx context.Context, obj []byte) (*Envelope, error) {
	env := &Envelope{seen: map[string]json.RawMessage{}}
	var result []byte
	hasResult := false
	red, err := reduceObject(ctx, obj, 0, envelopeShape, func(k []byte, field string, v []byte) bool {
		if _, ok := envelopeShape.fields[string(k)]; ok {
			env.seen[string(k)] = v
		}
		if field == "result" {
			result, hasResult = v, true
			return true
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(red, (*envelopeAlias)(env)); err != nil {
		return nil, err
	}
	if hasResult {
		env.Result = bytes.Clone(result)
	}
	return env, nil
}

// DecodeDescriptor reads a describe envelope's result as a Descriptor and
// normalizes it (docs/protocol.md §9: normalize before validating). The result must
// be a JSON object naming each key once (CheckDuplicateDescriptorKeys; the error
// wraps a *DuplicateKeyError). It reads result in one pass and decodes only
// the members Descriptor has, in time linear in len(result).
func DecodeDescriptor(result json.RawMessage) (*Descriptor, error) {
	return DecodeDescriptorContext(context.Background(), result)
}

// DecodeDescriptorContext is DecodeDescriptor that stops when ctx ends,
// within a few milliseconds at any size: the error is then ctx's
// (errors.Is context.Canceled or context.DeadlineExceeded).
func DecodeDescriptorContext(ctx context.Context, result json.RawMessage) (*Descriptor, error) {
	t := bytes.TrimSpace(result)
	if len(t) == 0 || t[0] != '{' {
		return nil, errors.New("describe result is not a JSON object")
	}
	end, keyErr, err := scanValue(ctx, t, 0, &descriptorKeyRules)
	switch {
	case keyErr != nil:
		return nil, fmt.Errorf("describe result breaks docs/protocol.md §9 (one name per key): %w", keyErr)
	case errors.Is(err, errSyntax):
		return nil, fmt.Errorf("describe result: %w", stdSyntaxError(t))
	case err != nil:
		return nil, err
	case end != len(t):
		// More after the object: encoding/json's words for it.
		return nil, fmt.Errorf("describe result: %w", json.Unmarshal(t, new(json.RawMessage)))
	}
	d, err := decodeDescriptorObject(ctx, t)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("describe result: %w", err)
	}
	d.Normalize()
	return d, nil
}

// decodeDescriptorObject decodes obj (one object the scanner accepted) as
// json.Unmarshal into a Descriptor would; the schema maps are read here,
// each schema copied as it came.
func decodeDescriptorObject(ctx context.Context, obj []byte) (*Descriptor, error) {
	d := &Descriptor{}
	type pending struct {
		to  *map[string]json.RawMessage
		obj []byte
	}
	var maps []pending
	red, err := reduceObject(ctx, obj, 0, descriptorShape, func(_ []byte, field string, v []byte) bool {
		var to *map[string]json.RawMessage
		switch field {
		case "request_schemas":
			to = &d.RequestSchemas
		case "result_schemas":
			to = &d.ResultSchemas
		case "artifact_schemas":
			to = &d.ArtifactSchemas
		default:
			return false
		}
		if v[0] != '{' {
			return false // null, or the wrong type: encoding/json's to judge
		}
		maps = append(maps, pending{to, v})
		return true
	})
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(red, d); err != nil {
		return nil, err
	}
	for _, p := range maps {
		m, err := rawMap(ctx, p.obj)
		if err != nil {
			return nil, err
		}
		*p.to = m
	}
	return d, nil
}

// rawMap reads the object obj (scanned) as a map[string]json.RawMessage
// as encoding/json does: keys decoded, each value's bytes as they came
// (in one buffer), the last of a repeated key kept.
func rawMap(ctx context.Context, obj []byte) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	buf := make([]byte, 0, len(obj))
	var key []byte
	t := ticker{ctx: ctx}
	var err error
	eachMember(obj, 0, func(mb member) bool {
		if err = t.at(mb.v1); err != nil {
			return false
		}
		key = appendUnquoted(key[:0], mb.key)
		start := len(buf)
		buf = append(buf, obj[mb.v0:mb.v1]...)
		m[string(key)] = json.RawMessage(buf[start:len(buf):len(buf)])
		return true
	})
	return m, err
}

// ticker looks at a context every scanCheckEvery bytes of progress.
type ticker struct {
	ctx  context.Context
	next int
}

// at is ctx's error once pos has moved scanCheckEvery bytes past the last
// look.
func (t *ticker) at(pos int) error {
	if t.ctx == nil || pos < t.next {
		return nil
	}
	t.next = pos + scanCheckEvery
	return t.ctx.Err()
}

// reduceObject copies the object at d[i] (scanned) keeping only the
// members a field of sh takes (its name, or a spelling encoding/json
// matches to it regardless of case), each reduced the same way beneath:
// what json.Unmarshal into sh's type decodes alike, without the members it
// would skip. take is offered each top-level member (its decoded key, the
// field's name or "", its value) and returns true when it keeps the
// member for itself, out of the copy.
func reduceObject(ctx context.Context, d []byte, i int, sh *shape, take func(key []byte, field string, v []byte) bool) ([]byte, error) {
	r := &reducer{d: d, t: ticker{ctx: ctx}}
	out := make([]byte, 0, 256)
	out = append(out, '{')
	first := true
	eachMember(d, i, func(m member) bool {
		if r.err = r.t.at(m.v1); r.err != nil {
			return false
		}
		r.key = appendUnquoted(r.key[:0], m.key)
		name, fs := r.field(sh)
		if take != nil && take(r.key, name, d[m.v0:m.v1]) || fs == nil {
			return true
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, m.keyQuoted...)
		out = append(out, ':')
		out = r.value(out, m.v0, m.v1, fs)
		return r.err == nil
	})
	return append(out, '}'), r.err
}

// reducer is the state of one reduceObject.
type reducer struct {
	d         []byte
	t         ticker
	err       error
	key, fold []byte
}

// field is the field of sh that the key in r.key decodes into, by
// encoding/json's rule (the exact name, else the same folded).
func (r *reducer) field(sh *shape) (string, *shape) {
	if fs, ok := sh.fields[string(r.key)]; ok {
		return string(r.key), fs
	}
	r.fold = appendFolded(r.fold[:0], r.key)
	name, ok := sh.folded[string(r.fold)]
	if !ok {
		return "", nil
	}
	return name, sh.fields[name]
}

// value appends the value d[v0:v1] reduced for sh.
func (r *reducer) value(out []byte, v0, v1 int, sh *shape) []byte {
	d := r.d
	switch {
	case sh.kind == kindObject && d[v0] == '{':
		out = append(out, '{')
		first := true
		eachMember(d, v0, func(m member) bool {
			if r.err = r.t.at(m.v1); r.err != nil {
				return false
			}
			r.key = appendUnquoted(r.key[:0], m.key)
			_, fs := r.field(sh)
			if fs == nil {
				return true
			}
			if !first {
				out = append(out, ',')
			}
			first = false
			out = append(out, m.keyQuoted...)
			out = append(out, ':')
			out = r.value(out, m.v0, m.v1, fs)
			return r.err == nil
		})
		return append(out, '}')
	case sh.kind == kindArray && sh.elem.kind == kindObject && d[v0] == '[':
		out = append(out, '[')
		first := true
		eachElement(d, v0, func(e0, e1 int) bool {
			if !first {
				out = append(out, ',')
			}
			first = false
			out = r.value(out, e0, e1, sh.elem)
			return r.err == nil
		})
		return append(out, ']')
	}
	return append(out, d[v0:v1]...)
}

// errorAlias has Error's fields without its methods.
type errorAlias Error

// UnmarshalJSON decodes an error and records whether "details" was a JSON
// object, as docs/protocol.md §6 requires.
func (e *Error) UnmarshalJSON(data []byte) error {
	var seen map[string]json.RawMessage
	if err := json.Unmarshal(data, &seen); err != nil {
		return err
	}
	var a errorAlias
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	*e = Error(a)
	d := bytes.TrimSpace(seen["details"])
	e.detailsNotObject = len(d) == 0 || d[0] != '{'
	return nil
}
