package dialog

import (
	"encoding/json"
	"strings"
	"testing"

	"modbay/modproto"
	"modbay/runner"
)

// TestApprovalInputAsTyped: the whole-input view of a whole-request
// schema shows the URL a person approves as they typed it, & < > and all.
func TestApprovalInputAsTyped(t *testing.T) {
	p := &runner.Plan{WholeRequest: true, Request: modproto.Request{
		Input: json.RawMessage(`{"q":"a<b"}`),
		Extra: map[string]json.RawMessage{"url": json.RawMessage(`"https://e.com/?a=1&b=2"`)}}}
	in := newApprovalInput(p)
	s := string(in.raw)
	if !strings.Contains(s, `"url":"https://e.com/?a=1&b=2"`) || !strings.Contains(s, `"input":{"q":"a<b"}`) {
		t.Errorf("approval input %s: want it as typed", s)
	}
}
