package modproto

import (
	"bytes"
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
// envelope's rules are checked separately by ValidateEnvelope.
func DecodeEnvelope(stdout []byte) (*Envelope, error) {
	trimmed := bytes.TrimLeft(stdout, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, &DecodeError{Code: CodeHostInvalidJSON, Detail: "stdout is empty; expected one JSON envelope"}
	}
	lead := int64(len(stdout) - len(trimmed))
	if trimmed[0] != '{' {
		return nil, &DecodeError{Code: CodeHostInvalidJSON, Detail: "stdout does not start with a JSON object", Offset: lead}
	}
	dec := json.NewDecoder(bytes.NewReader(stdout))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		off := dec.InputOffset()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		return nil, &DecodeError{Code: CodeHostInvalidJSON, Detail: "stdout is not valid JSON: " + err.Error(), Offset: off}
	}
	end := dec.InputOffset()
	if rest := bytes.TrimSpace(stdout[end:]); len(rest) > 0 {
		return nil, &DecodeError{Code: CodeHostProtocolViolation,
			Detail: fmt.Sprintf("%d bytes of non-whitespace after the envelope", len(rest)), Offset: end, Trailing: true}
	}
	if err := CheckDuplicateEnvelopeKeys(raw); err != nil {
		return nil, &DecodeError{Code: CodeHostProtocolViolation, Detail: "envelope breaks docs/protocol.md §6 (one name per key): " + err.Error(), Offset: lead}
	}
	var env Envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		// One JSON object, but a field of the wrong type: the envelope
		// breaks the rules of docs/protocol.md §6 rather than not being JSON.
		return nil, &DecodeError{Code: CodeHostProtocolViolation, Detail: "envelope has a field of the wrong type: " + err.Error(), Offset: lead}
	}
	return &env, nil
}

// DecodeDescriptor reads a describe envelope's result as a Descriptor and
// normalizes it (docs/protocol.md §9: normalize before validating). The result must
// be a JSON object naming each key once (CheckDuplicateDescriptorKeys; the error
// wraps a *DuplicateKeyError).
func DecodeDescriptor(result json.RawMessage) (*Descriptor, error) {
	t := bytes.TrimSpace(result)
	if len(t) == 0 || t[0] != '{' {
		return nil, errors.New("describe result is not a JSON object")
	}
	if err := CheckDuplicateDescriptorKeys(t); err != nil {
		return nil, fmt.Errorf("describe result breaks docs/protocol.md §9 (one name per key): %w", err)
	}
	var d Descriptor
	if err := json.Unmarshal(t, &d); err != nil {
		return nil, fmt.Errorf("describe result: %w", err)
	}
	d.Normalize()
	return &d, nil
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
