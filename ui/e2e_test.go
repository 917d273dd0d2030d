package ui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"modbay/config"
	"modbay/runner"
)

// tinyModule is a real executable speaking the protocol: describe prints
// a descriptor, invoke echoes the request id with a fixed result.
const tinyModule = `#!/bin/sh
if [ "$2" = describe ]; then
cat <<'JSON'
{"protocol":"xibodev.module/v1","module":"tiny","operation":"describe","request_id":"","ok":true,
 "result":{"module":"tiny","name":"Tiny","version":"0.1.0","protocol_versions":["xibodev.module/v1"],
  "capabilities":[{"id":"tiny.hello","title":"Hello","summary":"Say hello.","request_schema":"tiny.hello.request",
   "result_schema":"","artifact_schemas":[],"effects":{"local":true,"network":false,"external_writes":false,"provider":"local","cost_known":true},"skills":[],"long_running":false}],
  "request_schemas":{"tiny.hello.request":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}},
  "result_schemas":{},"artifact_schemas":{},"agent_overlays":[],"skills":[],
  "permissions":{"filesystem_read":[],"filesystem_write":[],"network":[],"credentials":[],"paid_providers":[],"publish":false,"subprocess":[]},
  "requirements":[]},
 "warnings":[],"execution":{"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]}}
JSON
exit 0
fi
echo "hello from stderr" >&2
# Shell builtins only: a module declaring no subprocess may execute
# nothing but itself and its interpreter (docs/containment.md).
read -r req < "$5"
id=${req#*'"request_id":"'}
id=${id%%'"'*}
printf '{"protocol":"xibodev.module/v1","module":"tiny","operation":"invoke","request_id":"%s","ok":true,"result":{"greeting":"hi e2e"},"warnings":[],"execution":{"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]}}' "$id"
`

// tinyHome is a home whose modules/ holds tinyModule as "tiny".
func tinyHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, "modules", "tiny")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tiny"), []byte(tinyModule), 0o755); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestEndToEndWithRealModule(t *testing.T) {
	cfg, err := config.Load(tinyHome(t))
	if err != nil {
		t.Fatal(err)
	}
	m := New(runner.NewHost(cfg), Options{NoColor: true})
	m.ctx = context.Background()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30))
	m.SetSender(tm.Send)
	wait := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	wait("Tiny")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("Say hello.")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("name *")
	tm.Type("Ada")
	tm.Send(tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl})
	wait("hi e2e")
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}
