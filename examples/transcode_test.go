package examples

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"modbay/modproto"
)

// TestTranscodeRequirements checks the descriptor's requirements on the
// wire: the binary probed and unavailable ("needs setup"), the config
// entry with no "available" key at all ("not probed", docs/protocol.md §9).
func TestTranscodeRequirements(t *testing.T) {
	r := runMain(t, "transcode", "module", "describe", "--json")
	var raw struct {
		Requirements []map[string]json.RawMessage `json:"requirements"`
	}
	if err := json.Unmarshal(r.env.Result, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Requirements) != 2 {
		t.Fatalf("requirements %v", raw.Requirements)
	}
	bin, cfg := raw.Requirements[0], raw.Requirements[1]
	if string(bin["kind"]) != `"binary"` || string(bin["name"]) != `"ffmpeg-modbay-example"` || string(bin["available"]) != "false" ||
		!strings.Contains(string(bin["detail"]), "binaries: in config.yaml") {
		t.Errorf("binary requirement %s", r.env.Result)
	}
	if _, ok := cfg["available"]; ok || string(cfg["kind"]) != `"config"` || string(cfg["name"]) != `"transcode.profile"` {
		t.Errorf("config requirement must omit available: %v", cfg)
	}
	if d := describe(t, "transcode"); len(d.Permissions.Subprocess) != 1 || d.Permissions.Subprocess[0] != transcodeBinary {
		t.Errorf("permissions %+v", d.Permissions)
	}
}

func TestTranscodeMissingBinary(t *testing.T) {
	f := newFixture(t, "transcode", "transcode.video", map[string]any{"source": "clip.mov"})
	r := f.invoke()
	wantError(t, r, modproto.CodeMissingRequirement, "")
	if d := r.env.Error.Details; d["kind"] != "binary" || d["name"] != transcodeBinary || r.env.Error.Retryable {
		t.Errorf("error %+v", r.env.Error)
	}
	f.req.Binaries = map[string]string{transcodeBinary: "relative/ffmpeg"}
	wantError(t, f.invoke(), modproto.CodeMissingRequirement, "")
	f.req.Binaries = map[string]string{transcodeBinary: filepath.Join(f.dir, "absent")}
	f.write("clip.mov", "movie")
	wantError(t, f.invoke(), modproto.CodeMissingRequirement, "")
}

// fakeFFmpeg writes a stand-in for the binary: a /bin/sh script (run with
// no PATH) that copies its -i input to its last argument, or fails.
func fakeFFmpeg(t *testing.T, dir string, fail bool) string {
	t.Helper()
	script := `#!/bin/sh
in=""
prev=""
for a in "$@"; do
  if [ "$prev" = "-i" ]; then in="$a"; fi
  prev="$a"
  out="$a"
done
echo "frame=1 fps=25 env=$(/usr/bin/env | /usr/bin/tr '\n' ' ')" >&2
if [ -n "$FAIL" ]; then echo "boom" >&2; exit 3; fi
exec /bin/cp "$in" "$out"
`
	if fail {
		script = strings.Replace(script, `if [ -n "$FAIL" ]`, `if true`, 1)
	}
	p := filepath.Join(dir, "fake-ffmpeg")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTranscodeWithBinary(t *testing.T) {
	f := newFixture(t, "transcode", "transcode.video", map[string]any{"source": "clips/intro.mov", "format": "webm", "height": 480})
	f.write("clips/intro.mov", "pretend video bytes")
	t.Setenv("SECRET_TOKEN", "do-not-leak")
	f.req.Binaries = map[string]string{transcodeBinary: fakeFFmpeg(t, f.dir, false)}
	r := f.invoke()
	res := result(t, r)
	if res["format"] != "webm" || res["height"] != 480.0 || res["bytes"] != float64(len("pretend video bytes")) {
		t.Errorf("result %v", res)
	}
	a := r.env.Execution.Artifacts[0]
	if a.Kind != kindTranscodeVideo || a.MediaType != "video/webm" || a.Presentation != "video" || !strings.HasSuffix(a.Path, "/intro.webm") {
		t.Errorf("artifact %+v", a)
	}
	if !strings.Contains(r.stderr, transcodeBinary+": frame=1") {
		t.Errorf("the binary's stderr should be relayed: %q", r.stderr)
	}
	if strings.Contains(r.stderr, "SECRET_TOKEN") {
		t.Errorf("the binary inherited the environment: %q", r.stderr)
	}

	f.req.Binaries[transcodeBinary] = fakeFFmpeg(t, t.TempDir(), true)
	r = f.invoke()
	wantError(t, r, modproto.CodeProviderFailure, "")
	if r.env.Error.Details["exit_code"] != 3.0 || !strings.Contains(r.env.Error.Details["stderr"].(string), "boom") {
		t.Errorf("details %v", r.env.Error.Details)
	}
}

func TestTranscodeInputChecks(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "x.mov"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		input map[string]any
		code  string
		field string
	}{
		{map[string]any{}, modproto.CodeInvalidRequest, "source"},
		{map[string]any{"source": "nope.mov"}, modproto.CodeInvalidRequest, "source"},
		{map[string]any{"source": "clips"}, modproto.CodeInvalidRequest, "source"},
		{map[string]any{"source": "a.mov", "format": "avi"}, modproto.CodeInvalidRequest, "format"},
		{map[string]any{"source": "a.mov", "height": 100}, modproto.CodeInvalidRequest, "height"},
		{map[string]any{"source": "../x.mov"}, modproto.CodePathOutsideRoot, "source"},
		{map[string]any{"source": filepath.Join(outside, "x.mov")}, modproto.CodePathOutsideRoot, "source"},
		{map[string]any{"source": "link.mov"}, modproto.CodePathOutsideRoot, "source"},
	} {
		f := newFixture(t, "transcode", "transcode.video", tc.input)
		f.write("clips/a.txt", "")
		f.write("a.mov", "")
		if err := os.Symlink(filepath.Join(outside, "x.mov"), filepath.Join(f.workspace(), "link.mov")); err != nil {
			t.Fatal(err)
		}
		f.req.Binaries = map[string]string{transcodeBinary: fakeFFmpeg(t, f.dir, false)}
		wantError(t, f.invoke(), tc.code, tc.field)
	}
}

func TestTailBuffer(t *testing.T) {
	var tb tailBuffer
	tb.Write(bytes.Repeat([]byte("a"), transcodeStderrTail))
	tb.Write([]byte("end\n"))
	if s := tb.String(); len(s) != transcodeStderrTail-1 || !strings.HasSuffix(s, "aend") {
		t.Errorf("tail %d bytes, ends %q", len(s), s[len(s)-5:])
	}
}
