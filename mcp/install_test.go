package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMergeClientEntryKeepsCommentsAndMembers(t *testing.T) {
	entry := json.RawMessage(`{"command":"/bin/modbay","args":["mcp","serve"]}`)
	for name, tc := range map[string]struct{ in, key string }{
		"empty":          {"", "mcpServers"},
		"no key":         {"{\n  // mine\n  \"theme\": \"dark\"\n}\n", "mcpServers"},
		"other server":   {"{\n  \"mcpServers\": {\n    \"gh\": {\"command\": \"gh\"} // keep\n  }\n}\n", "mcpServers"},
		"replace":        {"{\"servers\": {\"modbay\": {\"command\": \"old\"}, \"x\": {\"command\": \"x\"}}}", "servers"},
		"trailing comma": {"{\n  \"servers\": {\n    \"x\": {\"command\": \"x\"},\n  },\n}", "servers"},
		"empty object":   {"{\"mcpServers\": {}}", "mcpServers"},
		"string braces":  {"{\"a\": \"}{//\", \"mcpServers\": {\"b\": {\"command\": \"/*\"}}}", "mcpServers"},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := MergeClientEntry([]byte(tc.in), tc.key, "modbay", entry)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ParseClientConfig(out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var got *Imported
			for i := range f.Servers {
				if f.Servers[i].ID == "modbay" {
					got = &f.Servers[i]
				}
			}
			if got == nil || got.Server.Command != "/bin/modbay" || strings.Join(got.Server.Args, " ") != "mcp serve" {
				t.Fatalf("modbay entry %+v in\n%s", got, out)
			}
			for _, keep := range []string{"// mine", "// keep", "\"gh\"", "\"x\"", "\"theme\"", "\"}{//\""} {
				if strings.Contains(tc.in, keep) && !strings.Contains(string(out), keep) {
					t.Errorf("%s lost:\n%s", keep, out)
				}
			}
			if strings.Contains(string(out), "old") {
				t.Errorf("old entry kept:\n%s", out)
			}
			again, err := MergeClientEntry(out, tc.key, "modbay", entry)
			if err != nil || string(again) != string(out) {
				t.Errorf("merging twice changed it:\n%s\n---\n%s", out, again)
			}
		})
	}
	if _, err := MergeClientEntry([]byte("[1]"), "servers", "modbay", entry); err == nil {
		t.Error("an array top level merged")
	}
}
