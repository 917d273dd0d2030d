package runner

import (
	"context"
	"fmt"

	"modbay/modproto"
)

// BuiltDescribe is a describe answer a driver built in the host's own
// memory from values it decoded itself (an MCP server's tools, which the
// SDK decoded and the mcp driver turned into a descriptor, every module
// string sanitized and bounded there): the envelope and its descriptor as
// Go values. The driver's Description.Envelope is still their json.Marshal
// encoding (what the describe cache keeps).
//
// The host judges it without decoding Envelope again: the decoders'
// duplicate-key, unknown-key and JSON-type scans look for what a module's
// own bytes may hold, and json.Marshal of these values writes none of
// it. Every other check runs as for a process's answer: the envelope's
// rules (ValidateEnvelope), the descriptor's (ValidateDescriptor, the
// shape warnings), the module id, the size of the encoding
// (DescribeMaxOutputBytes), and then, as for any describe, the
// request schemas' compilation and satisfiability (checkRequestSchemas).
type BuiltDescribe struct {
	// Envelope is the describe envelope; its Result is Descriptor encoded.
	Envelope *modproto.Envelope
	// Descriptor is the envelope's result, normalized.
	Descriptor *modproto.Descriptor
}

// judgeFresh judges a describe that was just run: a driver's built
// answer through judgeBuilt, its encoding bounded by
// DescribeMaxOutputBytes as a process's stdout is; anything else (bytes a
// module wrote) through judgeDescribe, which stops when ctx ends.
func judgeFresh(ctx context.Context, m *Module, stdout []byte, built *BuiltDescribe, expectID string, exitCode int) bool {
	if built == nil || built.Envelope == nil || built.Descriptor == nil {
		return judgeDescribe(ctx, m, stdout, expectID, exitCode)
	}
	if len(stdout) > DescribeMaxOutputBytes {
		setBroken(m, fmt.Sprintf("describe: the answer exceeds %d bytes (runner.DescribeMaxOutputBytes)", DescribeMaxOutputBytes))
		return false
	}
	return judgeBuilt(m, built, expectID)
}

// judgeBuilt is judgeDescribe for a BuiltDescribe: the same verdicts and
// reasons, without decoding bytes the host wrote itself.
func judgeBuilt(m *Module, b *BuiltDescribe, expectID string) bool {
	env := b.Envelope
	if !acceptDescribeEnvelope(m, env, expectID, nil) {
		return false
	}
	d := b.Descriptor
	d.Normalize()
	return acceptDescriptor(m, d, env.Module, expectID, nil, nil)
}
