package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// secretsModule builds testdata/hostile/secrets as <tmp>/secrets/secrets
// (a folder of its own, named for its id).
func secretsModule(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "secrets", "secrets")
	build := exec.Command("go", "build", "-o", exe, "./testdata/hostile/secrets")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the secrets module: %v\n%s", err, out)
	}
	return exe
}

// leakSecret is the writeOnly value the tests give; leakMark the part of
// it no masked copy holds.
const (
	leakSecret = "sk-live-4242&<x>"
	leakMark   = "sk-live-4242"
	leakLabel  = "‹masked: writeOnly /api_key›"
)

// noSecretUnder fails for every file under dir, but those under skip,
// whose name or bytes hold the secret.
func noSecretUnder(t *testing.T, dir string, skip ...string) {
	t.Helper()
	n := 0
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		for _, s := range skip {
			if p == s {
				return filepath.SkipDir
			}
		}
		n++
		if strings.Contains(fi.Name(), leakMark) {
			t.Errorf("%s is named after the secret", p)
		}
		if fi.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), leakMark) || strings.Contains(string(b), `sk-live-4242\u0026`) {
				t.Errorf("%s holds the secret", p)
			}
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("walking %s: %d files, %v", dir, n, err)
	}
}

// exportAll exports every run of home and returns the export folder.
func exportAll(t *testing.T, home string) string {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(home, "history", "runs", "*.json"))
	if len(runs) == 0 {
		t.Fatal("no run recorded")
	}
	out := t.TempDir()
	for _, r := range runs {
		id := strings.TrimSuffix(filepath.Base(r), ".json")
		if code, o, e := run(t, "--home", home, "history", "export", id, filepath.Join(out, id)); code != ExitOK {
			t.Fatalf("history export %s: exit %d %s %s", id, code, o, e)
		}
	}
	return out
}

// TestSecretInArtifactNamesRefused: a module that echoes its writeOnly
// input into an artifact's id, path (file name), media type parameter or
// presentation has that artifact refused, naming the rule, and one that
// echoes it into a title has the title masked; the rest of the result is
// kept. No byte of the secret reaches what invoke prints, the history,
// the staged type files or an export (its files and their names).
func TestSecretInArtifactNamesRefused(t *testing.T) {
	exe := secretsModule(t)
	home := t.TempDir()
	code, out, errb := run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.arts", "--json", "--trace",
		"--input", `{"api_key":"`+leakSecret+`","q":"hi"}`)
	if code != ExitHostVerdict {
		t.Fatalf("invoke: exit %d\n%s\n%s", code, out, errb)
	}
	if strings.Contains(out+errb, leakMark) {
		t.Fatalf("invoke shows the secret:\n%s\n%s", out, errb)
	}
	var res struct {
		Artifacts []struct {
			ID    string `json:"id"`
			Title string `json:"title"`
		} `json:"artifacts"`
		Refused []struct {
			ID     string `json:"id"`
			Reason string `json:"reason"`
		} `json:"refused_artifacts"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("invoke --json: %v\n%s", err, out)
	}
	if len(res.Artifacts) != 1 || res.Artifacts[0].ID != "e" || res.Artifacts[0].Title != "Report for "+leakLabel {
		t.Errorf("kept artifacts %+v, want e titled %q", res.Artifacts, "Report for "+leakLabel)
	}
	if len(res.Refused) != 4 {
		t.Fatalf("refused %+v, want a, b, c and d", res.Refused)
	}
	for i, what := range []string{"id", "path", "media type", "presentation"} {
		r := res.Refused[i]
		if !strings.Contains(r.Reason, "its "+what+" holds a secret of the input (writeOnly /api_key)") || !strings.Contains(r.Reason, "docs/protocol.md §8") {
			t.Errorf("refused %d: %+v, want its %s named", i, r, what)
		}
	}
	if res.Refused[0].ID != "a-"+leakLabel {
		t.Errorf("refused id %q, want it masked", res.Refused[0].ID)
	}
	noSecretUnder(t, filepath.Join(home, "history"))
	noSecretUnder(t, filepath.Join(home, "artifacts"))
	noSecretUnder(t, filepath.Join(home, "requests"))
	types, _ := filepath.Glob(filepath.Join(home, "artifacts", "sha256", "*", "*.type.json"))
	if len(types) != 1 {
		t.Errorf("%d staged type files, want the one of e", len(types))
	} else if b, _ := os.ReadFile(types[0]); !strings.Contains(string(b), "Report for "+leakLabel) {
		t.Errorf("staged type %s", b)
	}
	noSecretUnder(t, exportAll(t, home))
}

// TestSecretJobIDMasked: a job whose id holds the secret is shown,
// recorded, listed and exported by its masked id; only the host's job
// state keeps the handle, so the polls of the job resumed from the
// history (jobs wait) reach the module with the real id, and what they
// send back is masked too. The state goes when the job ends.
func TestSecretJobIDMasked(t *testing.T) {
	exe := secretsModule(t)
	home := t.TempDir()
	code, out, errb := run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.job", "--detach", "--json",
		"--input", `{"api_key":"`+leakSecret+`"}`)
	if code != ExitOK || strings.Contains(out+errb, leakMark) || !strings.Contains(out, "J"+leakLabel) {
		t.Fatalf("invoke --detach: exit %d\n%s\n%s", code, out, errb)
	}
	var d struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.RunID == "" {
		t.Fatalf("invoke --detach --json: %v\n%s", err, out)
	}
	state := filepath.Join(home, "jobs", d.RunID+".json")
	if b, err := os.ReadFile(state); err != nil || !strings.Contains(string(b), `"job_id":"Jsk-live-4242`) {
		t.Fatalf("the host's job state: %v %s", err, b)
	}
	if fi, err := os.Stat(state); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("job state mode: %v %v", fi, err)
	}
	noSecretUnder(t, filepath.Join(home, "history"))
	code, out, errb = run(t, "--home", home, "jobs", "list")
	if code != ExitOK || strings.Contains(out+errb, leakMark) || !strings.Contains(out, d.RunID) {
		t.Fatalf("jobs list: exit %d\n%s\n%s", code, out, errb)
	}
	noSecretUnder(t, exportAll(t, home))

	code, out, errb = run(t, "--home", home, "jobs", "wait", d.RunID, "--verbose")
	if code != ExitOK || strings.Contains(out+errb, leakMark) || !strings.Contains(out+errb, "at J"+leakLabel) {
		t.Fatalf("jobs wait (the poll needs the real id): exit %d\n%s\n%s", code, out, errb)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("the job ended and its state stays: %v", err)
	}
	noSecretUnder(t, filepath.Join(home, "history"))
	noSecretUnder(t, exportAll(t, home))
}

// TestSecretResumedJobMasked: a job whose id holds no secret, detached
// and resumed by `jobs wait` in another process, has the input's secrets
// masked in what its polls send back (the host's job state keeps them
// while the job runs), on screen and in the history.
func TestSecretResumedJobMasked(t *testing.T) {
	exe := secretsModule(t)
	home := t.TempDir()
	code, out, errb := run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.plainjob", "--detach", "--json",
		"--input", `{"api_key":"`+leakSecret+`"}`)
	if code != ExitOK || strings.Contains(out+errb, leakMark) {
		t.Fatalf("invoke --detach: exit %d\n%s\n%s", code, out, errb)
	}
	var d struct {
		RunID string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.RunID == "" {
		t.Fatalf("invoke --detach --json: %v\n%s", err, out)
	}
	if fi, err := os.Stat(filepath.Join(home, "jobs", d.RunID+".json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the host's job state: %v %v", fi, err)
	}
	code, out, errb = run(t, "--home", home, "jobs", "wait", d.RunID, "--verbose")
	if code != ExitOK || strings.Contains(out+errb, leakMark) || !strings.Contains(out+errb, "done with "+leakLabel) {
		t.Fatalf("jobs wait: exit %d\n%s\n%s", code, out, errb)
	}
	if _, err := os.Stat(filepath.Join(home, "jobs", d.RunID+".json")); !os.IsNotExist(err) {
		t.Errorf("the job ended and its state stays: %v", err)
	}
	noSecretUnder(t, filepath.Join(home, "history"))
	noSecretUnder(t, exportAll(t, home))
}

// TestSecretInErrorCodeMasked: a module error whose code echoes the
// secret is printed, recorded (the run, index.tsv) and exported with
// the echo as "masked", the code still one token ("c_masked").
func TestSecretInErrorCodeMasked(t *testing.T) {
	exe := secretsModule(t)
	home := t.TempDir()
	code, out, errb := run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.fail",
		"--input", `{"api_key":"`+leakSecret+`","q":"hi"}`)
	if code != ExitModuleError {
		t.Fatalf("invoke: exit %d\n%s\n%s", code, out, errb)
	}
	if strings.Contains(out+errb, leakMark) || !strings.Contains(out+errb, "c_masked") {
		t.Fatalf("invoke shows:\n%s\n%s", out, errb)
	}
	_, out, errb = run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.fail", "--json",
		"--input", `{"api_key":"`+leakSecret+`","q":"hi"}`)
	if strings.Contains(out+errb, leakMark) || !strings.Contains(out, `"c_masked"`) {
		t.Fatalf("invoke --json shows:\n%s\n%s", out, errb)
	}
	idx, _ := os.ReadFile(filepath.Join(home, "history", "index.tsv"))
	if !strings.Contains(string(idx), "c_masked") {
		t.Errorf("index.tsv:\n%s", idx)
	}
	noSecretUnder(t, filepath.Join(home, "history"))
	noSecretUnder(t, exportAll(t, home))
}

// TestSecretEveryEnvelopeStringMasked: a reply with the secret in its
// provider, warnings, result (a key and values), an artifact title and
// an unknown envelope key has no byte of it in what invoke --json
// prints, walked string by string, nor in the history or an export.
func TestSecretEveryEnvelopeStringMasked(t *testing.T) {
	exe := secretsModule(t)
	home := t.TempDir()
	code, out, errb := run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.every", "--json", "--trace",
		"--input", `{"api_key":"`+leakSecret+`","q":"hi"}`)
	if code != ExitOK {
		t.Fatalf("invoke: exit %d\n%s\n%s", code, out, errb)
	}
	if strings.Contains(out+errb, leakMark) {
		t.Fatalf("invoke shows the secret:\n%s\n%s", out, errb)
	}
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("invoke --json: %v\n%s", err, out)
	}
	n := 0
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			n++
			if strings.Contains(x, leakMark) {
				t.Errorf("unmasked %q", x)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		case map[string]any:
			for k, c := range x {
				walk(k)
				walk(c)
			}
		}
	}
	walk(v)
	if !strings.Contains(out, "prov-"+leakLabel) {
		t.Errorf("provider not shown masked:\n%s", out)
	}
	noSecretUnder(t, filepath.Join(home, "history"))
	noSecretUnder(t, exportAll(t, home))
}

// TestSecretAtStderrCutDropped: a secret that starts a few bytes before
// the host's stderr cut (between its head and tail), or ends a few bytes
// after it, leaves no part of it in what invoke prints (the kept stderr,
// the raw exchange) or the history: the cut drops the end that begins a
// secret and the start that ends one.
func TestSecretAtStderrCutDropped(t *testing.T) {
	exe := secretsModule(t)
	home := t.TempDir()
	code, out, errb := run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.cut", "--json", "--trace",
		"--input", `{"api_key":"`+leakSecret+`","q":"hi"}`)
	if code != ExitOK {
		t.Fatalf("invoke: exit %d\n%s\n%s", code, out, errb)
	}
	var res struct {
		Stderr    string `json:"stderr"`
		Truncated bool   `json:"stderr_truncated"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("invoke --json: %v", err)
	}
	head, tail, cut := strings.Cut(res.Stderr, "…[modbay: ")
	if !res.Truncated || !cut || !strings.HasSuffix(head, "ppp") || !strings.HasSuffix(tail, "sss\n") {
		t.Fatalf("stderr cut %v: head ends %q, tail %.60q", res.Truncated, head[max(0, len(head)-20):], tail)
	}
	part, end := leakSecret[:6], leakSecret[len(leakSecret)-6:]
	if seen := res.Stderr + out + errb; strings.Contains(seen, "p"+part) || strings.Contains(seen, end+"sss") || strings.Contains(seen, "e-4242") {
		t.Errorf("invoke shows the secret's start %q or end %q at the cut", part, end)
	}
	runs, _ := filepath.Glob(filepath.Join(home, "history", "runs", "*"))
	for _, r := range runs {
		if b, _ := os.ReadFile(r); strings.Contains(string(b), "p"+part) || strings.Contains(string(b), end+"sss") {
			t.Errorf("%s keeps the secret's start %q or end %q", r, part, end)
		}
	}
}

// jsonUnescapeU decodes every \uXXXX of b (the test's own reading, so a
// secret escaped any way is found in what the host kept).
func jsonUnescapeU(b string) string {
	return regexp.MustCompile(`\\u[0-9a-fA-F]{4}`).ReplaceAllStringFunc(b, func(m string) string {
		r, _ := strconv.ParseUint(m[2:], 16, 32)
		return string(rune(r))
	})
}

// TestSecretEscapedOtherwiseMasked: a module that sends the secret with
// every character \u-escaped (as Python's json.dumps does for non-ASCII,
// or on purpose) in its result's values and keys, a warning, an
// artifact title and stderr has it masked everywhere it is kept: no
// byte of it in what invoke --json prints, the history or an export,
// read with the escapes decoded; bytes no secret touches stay as sent.
func TestSecretEscapedOtherwiseMasked(t *testing.T) {
	exe := secretsModule(t)
	home := t.TempDir()
	code, out, errb := run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.escaped", "--json", "--trace",
		"--input", `{"api_key":"`+leakSecret+`","q":"hi"}`)
	if code != ExitOK {
		t.Fatalf("invoke: exit %d\n%s\n%s", code, out, errb)
	}
	if s := jsonUnescapeU(out + errb); strings.Contains(s, leakMark) {
		t.Fatalf("invoke shows the escaped secret:\n%s\n%s", out, errb)
	}
	if !strings.Contains(out, "x "+leakLabel+" y") || !strings.Contains(out, "used "+leakLabel) {
		t.Errorf("the echoes are not shown masked:\n%s", out)
	}
	var files []string
	for _, dir := range []string{filepath.Join(home, "history"), exportAll(t, home)} {
		_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				files = append(files, p)
			}
			return nil
		})
	}
	for _, p := range files {
		if b, _ := os.ReadFile(p); strings.Contains(jsonUnescapeU(string(b)), leakMark) {
			t.Errorf("%s holds the escaped secret", p)
		}
	}
	if len(files) < 3 {
		t.Fatalf("only %d files kept: %v", len(files), files)
	}
}

// TestInvokeListsEachRefusalOnce: invoke's text output names each
// refused artifact's reason once, under "artifacts refused", the host
// verdict counting them (docs/protocol.md §8).
func TestInvokeListsEachRefusalOnce(t *testing.T) {
	exe := secretsModule(t)
	home := t.TempDir()
	_, out, errb := run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.arts",
		"--input", `{"api_key":"`+leakSecret+`","q":"hi"}`)
	if !strings.Contains(out+errb, "host verdict: 4 artifacts refused") {
		t.Fatalf("the verdict does not count the refusals:\n%s\n%s", out, errb)
	}
	for _, id := range []string{`"a-` + leakLabel + `"`, `"b"`, `"c"`, `"d"`} {
		if n := strings.Count(out+errb, "artifact "+id+": its "); n != 1 {
			t.Errorf("the refusal of %s is printed %d times:\n%s", id, n, out+errb)
		}
	}
}

// TestSecretCutInVerdictDropped: a long secret the module sends where a
// boolean belongs is quoted in the host's verdict cut short; no part of
// it is shown or kept, in what invoke prints or in the history.
func TestSecretCutInVerdictDropped(t *testing.T) {
	exe := secretsModule(t)
	home := t.TempDir()
	long := "sk-live-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghij"
	code, out, errb := run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.mistyped", "--json",
		"--input", `{"api_key":"`+long+`","q":"hi"}`)
	if code != ExitHostVerdict || !strings.Contains(out, "must be a boolean") {
		t.Fatalf("invoke: exit %d\n%s\n%s", code, out, errb)
	}
	part := long[:10]
	if strings.Contains(out+errb, part) {
		t.Errorf("invoke shows the secret's start %q:\n%s", part, out)
	}
	_ = filepath.Walk(filepath.Join(home, "history"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), part) {
				t.Errorf("%s keeps the secret's start %q", p, part)
			}
		}
		return nil
	})
}

// TestSecretNumbersMasked: a key that reads as a number, sent back as the
// execution's costs (which the host keeps typed), as a number in
// exponent notation in the result and on stderr, and as a job's percent,
// is masked wherever it is shown or kept: invoke's text, --json, --trace,
// the history and an export hold it in no spelling; the costs are
// withheld, named in masked_numbers.
func TestSecretNumbersMasked(t *testing.T) {
	exe := secretsModule(t)
	home := t.TempDir()
	const key = "12.75" // 1.275E+01, 1.275e+01
	spellings := regexp.MustCompile(`12\.75|1\.275[eE]`)
	code, out, errb := run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.numbers", "--trace",
		"--input", `{"api_key":"`+key+`","q":"hi"}`)
	if code != ExitOK || !strings.Contains(out, "cost: estimated "+leakLabel+", actual "+leakLabel) {
		t.Fatalf("invoke: exit %d\n%s\n%s", code, out, errb)
	}
	if m := spellings.FindString(out + errb); m != "" {
		t.Errorf("invoke --trace shows %q:\n%s\n%s", m, out, errb)
	}
	code, out, errb = run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.numbers", "--json",
		"--input", `{"api_key":"`+key+`","q":"hi"}`)
	var got struct {
		Envelope struct {
			Execution struct{ EstimatedCost, ActualCost *float64 } `json:"execution"`
		} `json:"envelope"`
		Masked []struct{ Pointer, Label string } `json:"masked_numbers"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != ExitOK {
		t.Fatalf("invoke --json: exit %d %v\n%s\n%s", code, err, out, errb)
	}
	if x := got.Envelope.Execution; x.EstimatedCost != nil || x.ActualCost != nil || len(got.Masked) != 2 ||
		got.Masked[0].Pointer != "/execution/estimated_cost" || got.Masked[1].Label != leakLabel {
		t.Errorf("the costs are not withheld and named: %+v %+v", x, got.Masked)
	}
	code, out, errb = run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.numjob", "-v", "--json",
		"--input", `{"api_key":"`+key+`","q":"hi"}`)
	if code != ExitOK || !strings.Contains(out, `"percent": "`+leakLabel+`"`) {
		t.Fatalf("invoke s.numjob: exit %d\n%s\n%s", code, out, errb)
	}
	if m := spellings.FindString(out + errb); m != "" {
		t.Errorf("the job's percent shows %q:\n%s\n%s", m, out, errb)
	}
	code, out, errb = run(t, "--home", home, "jobs", "list")
	if m := spellings.FindString(out + errb); code != ExitOK || m != "" {
		t.Errorf("jobs list: exit %d, shows %q:\n%s", code, m, out)
	}
	for _, dir := range []string{filepath.Join(home, "history"), exportAll(t, home)} {
		_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() && !strings.HasSuffix(p, "input.json") {
				if b, _ := os.ReadFile(p); spellings.Match(b) {
					t.Errorf("%s keeps %q", p, spellings.Find(b))
				}
			}
			return nil
		})
	}
}

// TestSecretGoQuotedInVerdictMasked: a key holding characters Go's %q
// escapes otherwise than JSON (an invisible tag character, a bell), sent
// as the envelope's module, is masked in the host's verdict that quotes
// it, in what invoke prints and in the history.
func TestSecretGoQuotedInVerdictMasked(t *testing.T) {
	exe := secretsModule(t)
	home := t.TempDir()
	code, out, errb := run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.module", "--json",
		"--input", `{"api_key":"Zq7X\udb40\udc01wK3vP9mT\u0007","q":"hi"}`)
	if code != ExitHostVerdict || !strings.Contains(out, "module: is \\\""+leakLabel) {
		t.Fatalf("invoke: exit %d\n%s\n%s", code, out, errb)
	}
	if strings.Contains(out+errb, "wK3vP9mT") {
		t.Errorf("invoke shows the key:\n%s\n%s", out, errb)
	}
	_ = filepath.Walk(filepath.Join(home, "history"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "wK3vP9mT") {
				t.Errorf("%s keeps the key", p)
			}
		}
		return nil
	})
}

// TestMaskedSecretRefused: a copied line whose secret field holds the
// mask modbay wrote in its place is refused (exit 5, naming the field),
// not sent to the module as the secret.
func TestMaskedSecretRefused(t *testing.T) {
	exe := secretsModule(t)
	home := t.TempDir()
	code, out, errb := run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.every",
		"--input", `{"api_key":"••••••","q":"hi"}`)
	if code != ExitInputInvalid || !strings.Contains(out+errb, "/api_key") || !strings.Contains(out+errb, "holds the mask") {
		t.Fatalf("invoke: exit %d\n%s\n%s", code, out, errb)
	}
}

// TestNonUnicodeInputRefused: an input that is not Unicode text (a
// Latin-1 byte, a lone surrogate) is refused (exit 5) before any module
// runs: its secret, decoded otherwise than sent, could not be masked.
func TestNonUnicodeInputRefused(t *testing.T) {
	exe := secretsModule(t)
	home := t.TempDir()
	for _, in := range []string{"{\"api_key\":\"p\xe4sswortGeheim\"}", `{"api_key":"Sur\ud800rogateSecret"}`} {
		code, out, errb := run(t, "--home", home, "--module", exe, "invoke", "secrets", "s.every", "--input", in)
		if code != ExitInputInvalid || !strings.Contains(out+errb, "not") {
			t.Errorf("%q: exit %d\n%s\n%s", in, code, out, errb)
		}
	}
	if runs, _ := filepath.Glob(filepath.Join(home, "history", "runs", "*")); len(runs) != 0 {
		t.Errorf("a refused input ran: %v", runs)
	}
}
