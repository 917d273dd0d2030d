package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/mcp"
	"modbay/modproto"
	"modbay/runner"
)

// TestInvokePrintsText: an MCP text block and a module's text/* artifact
// are printed inline (to 64 KiB, then the path); --json carries an MCP
// text block's text, as typed, beside its artifact.
func TestInvokePrintsText(t *testing.T) {
	dir := t.TempDir()
	stage := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o400); err != nil {
			t.Fatal(err)
		}
		return p
	}
	long := strings.Repeat("é", maxInlineText) // 2 bytes a rune: cut inside one
	res := &runner.Result{RequestID: "req_1", Module: "m", Capability: "echo",
		Envelope: &modproto.Envelope{OK: true, Result: []byte(`{}`)},
		Artifacts: []runner.VerifiedArtifact{
			{Artifact: modproto.Artifact{ID: "content-0", Kind: mcp.KindText, MediaType: "text/plain"}, Staged: stage("c0.txt", "Echo: hi & <b>bye</b>\n")},
			{Artifact: modproto.Artifact{ID: "notes", Kind: "notes", MediaType: "text/markdown"}, Staged: stage("notes.md", "# Notes\x1b[31m\n")},
			{Artifact: modproto.Artifact{ID: "content-1", Kind: mcp.KindText, MediaType: "text/plain"}, Staged: stage("c1.txt", long)},
			{Artifact: modproto.Artifact{ID: "img", Kind: "image", MediaType: "image/png"}, Staged: stage("i.png", "\x89PNG")},
			{Artifact: modproto.Artifact{ID: "content-2", Kind: "resource", MediaType: "application/json"}, Staged: stage("c2.json", `{"note":"json"}`)},
		}}
	var buf bytes.Buffer
	writeResult(&buf, res, false, false)
	out := buf.String()
	for _, want := range []string{"    text:\n      Echo: hi & <b>bye</b>\n", "      # Notes␛[31m\n", "    text:\n      {\"note\":\"json\"}\n",
		"    … the first 64.0 KiB only; the whole artifact is " + filepath.Join(dir, "c1.txt")} {
		if !strings.Contains(out, want) {
			t.Errorf("human output lacks %q:\n%s", want, out[max(0, len(out)-600):])
		}
	}
	if strings.Contains(out, "PNG") {
		t.Errorf("an image's bytes were printed:\n%.2000s", out)
	}
	buf.Reset()
	if err := writeJSON(&buf, resultJSON(res)); err != nil {
		t.Fatal(err)
	}
	js := buf.String()
	if !strings.Contains(js, `"text": "Echo: hi & <b>bye</b>\n"`) {
		t.Errorf("--json lacks the text block's text as typed:\n%.1500s", js)
	}
	if strings.Count(js, `"truncated": true`) != 1 || strings.Contains(js, "# Notes") {
		t.Errorf("--json: want one truncated MCP text and no module text:\n%.600s", js)
	}
}
