package modproto

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONAsTyped: the request file a module receives, and every JSON a
// person reads, has &, < and > as typed and the input's own key order,
// on one line.
func TestJSONAsTyped(t *testing.T) {
	r := Request{Protocol: ProtocolID, Capability: "fetch.url", RequestID: "req_1",
		Input: json.RawMessage(`{"z":"https://e.com/?a=1&b=<2>","a":1}`),
		Extra: map[string]json.RawMessage{"note": json.RawMessage(`"x & y"`)}}
	b, err := EncodeJSON(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, `"input":{"z":"https://e.com/?a=1&b=<2>","a":1}`) || !strings.Contains(s, `"note":"x & y"`) {
		t.Errorf("request %s: want the input as typed", s)
	}
	if strings.Contains(s, "\n") || strings.Contains(s, `\u0026`) {
		t.Errorf("request %s: want one line, no HTML escapes", s)
	}
	b, _ = EncodeJSONIndent(map[string]string{"u": "<a&b>"}, "  ")
	if string(b) != "{\n  \"u\": \"<a&b>\"\n}" {
		t.Errorf("indented %q", b)
	}
}
