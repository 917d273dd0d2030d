package cli

import (
	"context"

	tea "charm.land/bubbletea/v2"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/config"
	"modbay/modproto"
)

// schemaModule writes a module whose one capability b.run takes the
// request schema raw and whose invoke prints nothing.
func schemaModule(t *testing.T, id string, raw json.RawMessage) string {
	t.Helper()
	return scriptModule(t, modproto.Descriptor{Module: id, Name: "Bounds", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities:   []modproto.Capability{{ID: "b.run", Title: "Run", Summary: "s", RequestSchema: "b.request/v1", Effects: localEffects}},
		RequestSchemas: map[string]json.RawMessage{"b.request/v1": raw}}, "exit 1")
}

// TestHostileSchemaModules: a module whose request schema would panic
// or hang the validator is listed broken with the bound it passed, and
// an input whose validation passes a bound is a host verdict naming it;
// modbay never crashes or hangs on either.
func TestHostileSchemaModules(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "schema", "testdata", "hostile", "multipleof-huge.json"))
	if err != nil {
		t.Fatal(err)
	}
	exe := schemaModule(t, "huge", raw)
	home := t.TempDir()
	code, out, _ := run(t, "--home", home, "--module", exe, "list", "--json")
	if code != ExitOK || !strings.Contains(out, "MaxNumberExponent") {
		t.Fatalf("list: exit %d %s", code, out)
	}
	code, out, _ = run(t, "--home", home, "--module", exe, "invoke", "huge", "b.run", "--json", "--input", `{"n":3}`)
	if code != ExitHostVerdict || !strings.Contains(out, `"outcome": "broken"`) || !strings.Contains(out, "MaxNumberExponent") {
		t.Fatalf("invoke: exit %d %s", code, out)
	}

	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"xs":{"type":"array","items":{"$ref":"#/$defs/d0"}}},"$defs":{`)
	for i := range 14 {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	b.WriteString(`"d14":{"type":"string"}}}`)
	exe = schemaModule(t, "costly", json.RawMessage(b.String()))
	input := `{"xs":[` + strings.Repeat(`"a",`, 199) + `"a"]}`
	code, out, _ = run(t, "--home", home, "--module", exe, "invoke", "costly", "b.run", "--json", "--input", input)
	if code != ExitHostVerdict || !strings.Contains(out, `"outcome": "bound"`) || !strings.Contains(out, "MaxValidateSteps") {
		t.Fatalf("invoke past MaxValidateSteps: exit %d %s", code, out)
	}
}

// TestCrashHasItsOwnCode: a panic in modbay, or a cockpit that crashed
// (Bubble Tea caught the panic and restored the terminal), exits
// ExitCrash with the reason on stderr, never the usage code.
func TestCrashHasItsOwnCode(t *testing.T) {
	ios, _, errb := fakeStreams(true)
	hooks := &runHooks{list: func(context.Context, *ListOptions) error { panic("boom \x1b[2J") }}
	if code := execute(context.Background(), []string{"list"}, ios, hooks); code != ExitCrash || !strings.Contains(errb.String(), "internal error: boom") || strings.Contains(errb.String(), "\x1b[2J") {
		t.Fatalf("panic: exit %d, stderr %q", code, errb.String())
	}
	ios, _, _ = fakeStreams(true)
	hooks = &runHooks{cockpit: func(context.Context, *CockpitOptions) error { return fmt.Errorf("cockpit: %w", tea.ErrProgramPanic) }}
	if code := execute(context.Background(), nil, ios, hooks); code != ExitCrash {
		t.Fatalf("cockpit panic: exit %d", code)
	}
}

// TestSecretEchoMasked: a module that sends back the secret it was given
// (a writeOnly field) has it masked, visibly, in what invoke prints, the
// history record and its export; the input was masked already.
func TestSecretEchoMasked(t *testing.T) {
	// Its text goes into the module itself: containment lets a module
	// read nothing of the repository.
	script, err := os.ReadFile(filepath.Join("testdata", "hostile", "echo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	exe := scriptModule(t, modproto.Descriptor{Module: "leaky", Name: "Leaky", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{{ID: "l.call", Title: "Call", Summary: "s", RequestSchema: "l.request/v1", Effects: localEffects}},
		RequestSchemas: map[string]json.RawMessage{"l.request/v1": json.RawMessage(
			`{"type":"object","properties":{"api_key":{"type":"string","writeOnly":true},"q":{"type":"string"}}}`)}},
		"\n"+strings.TrimSpace(string(script)))
	home := t.TempDir()
	const secret = "sk-live-4242&<x>"
	code, out, errb := run(t, "--home", home, "--module", exe, "invoke", "leaky", "l.call", "--json", "--trace",
		"--input", `{"api_key":"`+secret+`","q":"hello"}`)
	if code != ExitOK {
		t.Fatalf("invoke: exit %d %s %s", code, out, errb)
	}
	label := "‹masked: writeOnly /api_key›"
	if strings.Contains(out+errb, "sk-live-4242") || !strings.Contains(out, label) {
		t.Fatalf("invoke output shows the secret or no mask:\n%s\n%s", out, errb)
	}
	filepath.Walk(filepath.Join(home, "history"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "sk-live-4242") {
				t.Errorf("%s holds the secret", p)
			}
		}
		return nil
	})
	runs, _ := filepath.Glob(filepath.Join(home, "history", "runs", "*.json"))
	if len(runs) != 1 {
		t.Fatalf("%d runs recorded", len(runs))
	}
	dir := filepath.Join(t.TempDir(), "export")
	id := strings.TrimSuffix(filepath.Base(runs[0]), ".json")
	if code, out, errb = run(t, "--home", home, "history", "export", id, dir); code != ExitOK {
		t.Fatalf("history export: exit %d %s %s", code, out, errb)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "envelope.json")); !strings.Contains(string(b), label) {
		t.Fatalf("the export's envelope does not show the mask: %s", b)
	}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "sk-live-4242") {
				t.Errorf("export %s holds the secret", p)
			}
		}
		return nil
	})
}

// TestDescribeShowsServerCwd: describe says an MCP server's cwd is
// read-only unless its roots list it.
func TestDescribeShowsServerCwd(t *testing.T) {
	var b strings.Builder
	writeServerFiles(&b, config.MCPServer{Command: "/bin/srv", Cwd: "/p/proj", Roots: map[string]string{"/p/cache": "rwx"}})
	if !strings.Contains(b.String(), "/p/proj — read-only") || !strings.Contains(b.String(), "/p/cache — rwx") {
		t.Fatalf("describe:\n%s", b.String())
	}
}
