package modproto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// requestWire is Request without its Extra, so the default marshaller can
// encode the host-owned part.
type requestWire struct {
	Protocol       string            `json:"protocol"`
	Capability     string            `json:"capability"`
	RequestID      string            `json:"request_id"`
	Input          json.RawMessage   `json:"input"`
	Roots          map[string]Root   `json:"roots"`
	Grants         Grants            `json:"grants"`
	Binaries       map[string]string `json:"binaries"`
	DeadlineMS     int               `json:"deadline_ms"`
	MaxOutputBytes int               `json:"max_output_bytes"`
}

// MarshalJSON writes the request as one object: the host-owned keys, then
// each Extra key (sorted) that is not host-owned. A host-owned name in Extra
// is dropped: the host always wins (docs/protocol.md §4). Empty maps and lists are
// written as {} and [].
func (r Request) MarshalJSON() ([]byte, error) {
	n := r
	n.Normalize()
	n.Grants.Normalize()
	base, err := EncodeJSON(requestWire{
		Protocol: n.Protocol, Capability: n.Capability, RequestID: n.RequestID,
		Input: n.Input, Roots: n.Roots, Grants: n.Grants, Binaries: n.Binaries,
		DeadlineMS: n.DeadlineMS, MaxOutputBytes: n.MaxOutputBytes,
	})
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(r.Extra))
	for k := range r.Extra {
		if !IsHostOwnedKey(k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return base, nil
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Write(base[:len(base)-1])
	for _, k := range keys {
		v := r.Extra[k]
		if !json.Valid(v) {
			return nil, fmt.Errorf("request extra %q: value is not valid JSON", k)
		}
		kb, _ := EncodeJSON(k)
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		if err := json.Compact(&buf, v); err != nil {
			return nil, fmt.Errorf("request extra %q: %w", k, err)
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads a request; every root key that is not host-owned goes
// into Extra.
func (r *Request) UnmarshalJSON(data []byte) error {
	var w requestWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	*r = Request{
		Protocol: w.Protocol, Capability: w.Capability, RequestID: w.RequestID,
		Input: w.Input, Roots: w.Roots, Grants: w.Grants, Binaries: w.Binaries,
		DeadlineMS: w.DeadlineMS, MaxOutputBytes: w.MaxOutputBytes,
	}
	for k, v := range all {
		if IsHostOwnedKey(k) {
			continue
		}
		if r.Extra == nil {
			r.Extra = map[string]json.RawMessage{}
		}
		r.Extra[k] = v
	}
	return nil
}
