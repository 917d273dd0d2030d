package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/config"
	"modbay/modproto"
	"modbay/runner"
)

// TestMappedBinaryMakesTranscodeReady: with binaries:
// {ffmpeg-modbay-example: /bin/true} the transcode example is ready in
// list and describe, and describe says which path satisfied it (docs/protocol.md
// §9); without the mapping it needs setup, and its unprobed requirement
// is never called missing.
func TestMappedBinaryMakesTranscodeReady(t *testing.T) {
	home := demo(t)
	_, out, _ := run(t, "--home", home, "describe", "transcode")
	if !strings.Contains(out, "status:     needs setup") || !strings.Contains(out, "binary ffmpeg-modbay-example: needs setup") ||
		!strings.Contains(out, "config transcode.profile: not probed by the module") {
		t.Fatalf("unmapped describe:\n%s", out)
	}
	cfg := "binaries:\n  ffmpeg-modbay-example: /bin/true\n"
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "--home", home, "list", "--json")
	var mods []moduleJSON
	if code != ExitOK || json.Unmarshal([]byte(out), &mods) != nil {
		t.Fatalf("list --json: %d %s", code, out)
	}
	for _, m := range mods {
		if m.ID == "transcode" && m.Status != string(runner.StatusReady) {
			t.Errorf("list: transcode is %s — %s", m.Status, m.Reason)
		}
	}
	_, out, _ = run(t, "--home", home, "list")
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "transcode ") && !strings.Contains(line, "ready") {
			t.Errorf("list row: %q", line)
		}
	}
	code, out, _ = run(t, "--home", home, "describe", "transcode")
	if code != ExitOK || !strings.Contains(out, "status:     ready") ||
		!strings.Contains(out, "binary ffmpeg-modbay-example: available — /bin/true (config binaries)") ||
		!strings.Contains(out, "not probed by the module") {
		t.Fatalf("mapped describe:\n%s", out)
	}
}

// TestOneVerdictForASchemaThatDoesNotCompile: list, describe and validate
// all refuse a module whose request schema does not compile.
func TestOneVerdictForASchemaThatDoesNotCompile(t *testing.T) {
	home, exe := t.TempDir(), brokenSchemaModule(t)
	_, out, _ := run(t, "--home", home, "--module", exe, "list", "--json")
	var mods []moduleJSON
	if json.Unmarshal([]byte(out), &mods) != nil || len(mods) != 1 || mods[0].Status != string(runner.StatusBroken) ||
		!strings.Contains(mods[0].Reason, "does not compile") {
		t.Fatalf("list: %s", out)
	}
	_, out, _ = run(t, "--home", home, "describe", exe)
	if !strings.Contains(out, "status:     broken — 1 request schema error") {
		t.Fatalf("describe:\n%s", out)
	}
	if code, out, _ := run(t, "--home", home, "validate", exe); code != ExitHostVerdict || !strings.Contains(out, "refused — 1 request schema error") {
		t.Fatalf("validate: %d\n%s", code, out)
	}
}

// TestNotExecutableModuleIsListed: modules/<id>/<id> without the execute
// bit is listed broken with the chmod fix.
func TestNotExecutableModuleIsListed(t *testing.T) {
	home := t.TempDir()
	exe := scriptModule(t, modproto.Descriptor{Module: "plain", Name: "Plain", Version: "1", ProtocolVersions: []string{modproto.ProtocolID},
		Capabilities: []modproto.Capability{{ID: "plain.run", Title: "Run", Summary: "s", Effects: localEffects}}}, "exit 1")
	dir := filepath.Join(home, "modules", "plain")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ := run(t, "--home", home, "list")
	if !strings.Contains(out, "plain") || !strings.Contains(out, "broken") || !strings.Contains(out, "chmod +x "+filepath.Join(dir, "plain")) {
		t.Fatalf("list:\n%s", out)
	}
}
