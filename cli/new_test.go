package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// newModule runs `modbay new id --lang lang` into a fresh directory and
// returns the module's executable (built, for go; "" when go is missing).
func newModule(t *testing.T, id, lang string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	if code, out, errOut := run(t, "new", id, "--lang", lang, "--dir", dir); code != ExitOK {
		t.Fatalf("new --lang %s: exit %d\n%s%s", lang, code, out, errOut)
	}
	exe := filepath.Join(dir, id)
	if lang == LangGo {
		gobin, err := exec.LookPath("go")
		if err != nil {
			t.Skip("no go toolchain on PATH: the go template is not built")
		}
		cmd := exec.Command(gobin, "build", "-o", id, ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	return exe
}

// TestNewTemplatesWork: each template passes validate as written, and an
// invoke through the runner (contained, as every run) returns ok with its
// markdown and CSV artifacts verified.
func TestNewTemplatesWork(t *testing.T) {
	for _, lang := range []string{LangPython, LangSh, LangGo} {
		t.Run(lang, func(t *testing.T) {
			if lang == LangSh {
				for _, b := range []string{"jq", "sha256sum"} {
					if _, err := exec.LookPath(b); err != nil {
						t.Skipf("%s is not installed (.ci/run installs it)", b)
					}
				}
			}
			exe := newModule(t, "hello", lang)
			home := t.TempDir()
			code, out, errOut := run(t, "--home", home, "validate", exe)
			if code != ExitOK || !strings.HasPrefix(out, "hello: valid (ready)\n") {
				t.Fatalf("validate: exit %d\n%s%s", code, out, errOut)
			}
			if strings.Contains(out, "warning:") || strings.Contains(out, "error") {
				t.Errorf("validate has findings:\n%s", out)
			}
			code, out, errOut = run(t, "--home", home, "--module", exe, "invoke", "hello", "hello.report", "--json",
				"--input", `{"title":"Hi","tone":"cheerful","factor":2.5,"options":{"uppercase":true}}`)
			if code != ExitOK {
				t.Fatalf("invoke: exit %d\n%s%s", code, out, errOut)
			}
			var res struct {
				Artifacts []struct {
					Kind, MediaType, Path string
				} `json:"artifacts"`
				Enforcement json.RawMessage `json:"enforcement"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(res.Artifacts) != 2 || !strings.Contains(out, `"hello.report.markdown/v1"`) || !strings.Contains(out, `"text/csv"`) {
				t.Errorf("artifacts:\n%s", out)
			}
			md, _ := filepath.Glob(filepath.Join(home, "state", "hello@*", "output", "req_*report.md"))
			if len(md) != 1 {
				t.Fatalf("report.md not under the output root: %v", md)
			}
			if b, _ := os.ReadFile(md[0]); !strings.Contains(string(b), "# HI\n\nWhat a day!") || !strings.Contains(string(b), "| 5 | 12.5 |") {
				t.Errorf("report.md:\n%s", b)
			}
			// The module checks its input itself: called directly (no host
			// schema check in front), a bad input is invalid_request and an
			// unknown capability unknown_capability.
			for _, c := range []struct{ capability, input, code string }{
				{"hello.report", `{"title":""}`, "invalid_request"},
				{"hello.report", `{"title":"x","tone":"grumpy"}`, "invalid_request"},
				{"hello.report", `{"title":"x","factor":"lots"}`, "invalid_request"},
				{"hello.report", `{"title":"x","extra":1}`, "invalid_request"},
				{"hello.other", `{"title":"x"}`, "unknown_capability"},
			} {
				if got := directInvoke(t, exe, c.capability, c.input); got != c.code {
					t.Errorf("%s %s: error code %q, want %q", c.capability, c.input, got, c.code)
				}
			}
		})
	}
}

// directInvoke runs exe as modbay would, without modbay (env -i, a request
// file), and returns the envelope's error code ("" when ok).
func directInvoke(t *testing.T, exe, capability, input string) string {
	t.Helper()
	binaries := map[string]string{}
	for _, b := range []string{"jq", "sha256sum"} {
		if p, err := exec.LookPath(b); err == nil {
			binaries[b] = p
		}
	}
	root := t.TempDir()
	req, _ := json.Marshal(map[string]any{"protocol": "xibodev.module/v1", "capability": capability, "request_id": "req_00000000000000000000000000000001",
		"input": json.RawMessage(input), "roots": map[string]any{"output": map[string]string{"path": root, "mode": "rw"}},
		"grants": map[string]any{}, "binaries": binaries, "deadline_ms": 10000, "max_output_bytes": 1 << 20})
	file := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(file, req, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "module", "invoke", capability, "--input", file)
	cmd.Env = []string{"TMPDIR=" + t.TempDir()}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", capability, err, out)
	}
	var env struct {
		OK        bool                   `json:"ok"`
		RequestID string                 `json:"request_id"`
		Error     *struct{ Code string } `json:"error"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("not one envelope: %v\n%s", err, out)
	}
	if env.RequestID != "req_00000000000000000000000000000001" {
		t.Errorf("request_id not echoed: %s", out)
	}
	if env.OK || env.Error == nil {
		return ""
	}
	return env.Error.Code
}

// TestNewRefuses: a bad id, an unknown language and a non-empty directory
// are usage errors, and nothing is overwritten.
func TestNewRefuses(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep")
	os.WriteFile(keep, []byte("mine"), 0o644)
	for _, args := range [][]string{{"new", "Bad/Id"}, {"new", "ok", "--lang", "rust", "--dir", t.TempDir()}, {"new", "ok", "--dir", dir}} {
		if code, _, _ := run(t, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
	}
	if b, _ := os.ReadFile(keep); string(b) != "mine" {
		t.Error("a file was overwritten")
	}
}

// TestGuideShowsTheTemplates: docs/modules.md's worked examples are the
// templates, rendered for the id "hello", exactly as printed.
func TestGuideShowsTheTemplates(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("..", "docs", "modules.md"))
	if err != nil {
		t.Fatal(err)
	}
	for lang, name := range map[string]string{LangPython: "templates/python/module.py", LangGo: "templates/go/main.go.tmpl", LangSh: "templates/sh/module.sh"} {
		re := regexp.MustCompile("(?s)<!-- template:" + lang + " -->\n```[a-z]*\n(.*?)```\n<!-- /template:" + lang + " -->")
		m := re.FindSubmatch(guide)
		if m == nil {
			t.Errorf("docs/modules.md has no template:%s block", lang)
			continue
		}
		want, err := renderTemplate(name, "hello", lang)
		if err != nil {
			t.Fatal(err)
		}
		if string(m[1]) != want {
			t.Errorf("docs/modules.md's %s example differs from %s (regenerate the block from `modbay new hello --lang %s`)", lang, name, lang)
		}
	}
}

// TestNewPythonRunsContained: the python template's invoke, through the
// runner as the cockpit runs it, succeeds under kernel containment
// (Landlock, namespaces) where the machine applies it, and says so.
func TestNewPythonRunsContained(t *testing.T) {
	exe := newModule(t, "hello", LangPython)
	g := &globals{home: t.TempDir(), modules: []string{exe}}
	e, err := g.env(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.load(context.Background(), "hello")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := e.host.Plan(m, "hello.report", json.RawMessage(`{"title":"Hi","factor":3}`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.host.Run(context.Background(), plan, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() || len(res.Artifacts) != 2 {
		t.Fatalf("run: host %+v, stderr %s", res.Host, res.Stderr)
	}
	enf := res.Enforcement
	if !enf.Contained {
		t.Skipf("this machine does not contain modules (%v): the run above was uncontained", enf.Gaps)
	}
	if enf.Complete() && !strings.Contains(enf.Filesystem, "landlock") {
		t.Errorf("fully contained, yet the filesystem layer is %q", enf.Filesystem)
	}
	t.Logf("contained: processes %s, filesystem %s, network %s", enf.Processes, enf.Filesystem, enf.Network)
}

// TestNewTemplatesPassCheck: each template, as written, passes `modbay
// check` ("modbay new templates pass check in tests"): nothing
// fails, including the invalid input and the unknown capability.
func TestNewTemplatesPassCheck(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{LangPython, LangSh, LangGo} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			exe := newModule(t, "tpl"+lang, lang)
			code, out, errOut := run(t, "check", "--home", t.TempDir(), exe)
			if code != ExitOK || strings.Contains(out, "\nfail") {
				t.Fatalf("check of the %s template: exit %d\n%s%s", lang, code, out, errOut)
			}
		})
	}
}
