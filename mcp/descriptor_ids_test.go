package mcp

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"modbay/modproto"
)

// TestToolNamesKeepTheIDGrammar: a server's tool whose name breaks the
// capability id grammar (docs/protocol.md §13) is left out with a warning;
// the server and its other tools stay.
func TestToolNamesKeepTheIDGrammar(t *testing.T) {
	tools := []*sdk.Tool{{Name: "echo"}, {Name: "../../etc"}, {Name: "get weather"}, {Name: "ëcho"}, {Name: ".hidden"}}
	env, d, _ := describeEnvelope("srv", nil, tools, "stdio", false, "")
	if len(d.Capabilities) != 1 || d.Capabilities[0].ID != "echo" {
		t.Fatalf("capabilities %+v", d.Capabilities)
	}
	if v := modproto.ValidateDescriptor(d); len(v) > 0 {
		t.Errorf("the descriptor breaks §9: %v", v)
	}
	if n := strings.Count(strings.Join(env.Warnings, "\n"), "breaks the id grammar"); n != 4 {
		t.Errorf("%d warnings, want 4: %q", n, env.Warnings)
	}
}

// TestStatePathKeepsTheGrammar: an mcp_servers id outside the grammar
// never names the server's cache file.
func TestStatePathKeepsTheGrammar(t *testing.T) {
	for _, id := range []string{"../../x", ".hidden", "a/b"} {
		d := &Driver{id: id, cacheDir: t.TempDir()}
		if p := d.statePath(); p != "" {
			t.Errorf("id %q names %s", id, p)
		}
	}
	if d := (&Driver{id: "srv", cacheDir: "/c"}); d.statePath() == "" {
		t.Error("a valid id has no state file")
	}
}
