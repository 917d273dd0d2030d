package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rawModule writes a module executable whose describe prints describe (a
// raw JSON envelope, so it may carry keys no Go type has) and whose
// invoke runs the shell snippet invoke. It uses shell builtins only: a
// module gets no PATH.
func rawModule(t *testing.T, id, describe, invoke string) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), id)
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$2\" = describe ]; then echo '%s'; else %s; fi\n", describe, invoke)
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// describeWith is a describe envelope of module m whose descriptor has
// the given capability JSON and extra top-level descriptor keys.
func describeWith(m, capability, extra string) string {
	return `{"protocol":"xibodev.module/v1","module":"` + m + `","operation":"describe","request_id":"","ok":true,"warnings":[],` +
		`"execution":{"local":true,"network":false,"external_writes":false,"provider":"local","estimated_cost":0,"actual_cost":0,"artifacts":[]},` +
		`"result":{"module":"` + m + `","name":"M","version":"1","protocol_versions":["xibodev.module/v1"],"capabilities":[` + capability + `]` + extra + `}}`
}

const okCapability = `{"id":"m.go","title":"Go","summary":"Goes","effects":{"local":true,"provider":"local","cost_known":true}}`

// TestValidateStrictEffectsTypo: effects.netwrok refuses the module (it
// would otherwise run a networked call without approval), with the key
// meant; the verdict prints once; list shows the module broken.
func TestValidateStrictEffectsTypo(t *testing.T) {
	home := t.TempDir()
	exe := rawModule(t, "m", describeWith("m", `{"id":"m.go","title":"Go","summary":"Goes","effects":{"local":true,"netwrok":true,"provider":"local","cost_known":true}}`, ""), "exit 0")
	code, out, _ := run(t, "--home", home, "validate", exe)
	if code != ExitHostVerdict || !strings.Contains(out, `capabilities[0].effects.netwrok: unknown key; did you mean "network"?`) {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if n := strings.Count(out, "netwrok"); n != 1 {
		t.Errorf("the verdict prints %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "m: refused — descriptor breaks its rules (docs/modules.md#the-descriptor): 1 error") {
		t.Errorf("verdict line:\n%s", out)
	}
	_, out, _ = run(t, "--home", home, "--module", exe, "list")
	if !strings.Contains(out, "broken") {
		t.Errorf("list does not show the module broken:\n%s", out)
	}
}

// TestValidateStrictWarnings: typos outside effects and permissions,
// unreferenced request schemas and unknown envelope keys are warnings
// with the key meant; the module stays valid; requirements keep
// "required" and "for" quietly.
func TestValidateStrictWarnings(t *testing.T) {
	home := t.TempDir()
	capability := `{"id":"m.go","title":"Go","summary":"Goes","request_shema":"m.go.request/v1","effects":{"local":true,"provider":"local","cost_known":true}}`
	extra := `,"capabilites":[],"request_schemas":{"m.go.request/v1":{"type":"object"}},` +
		`"requirements":[{"kind":"config","name":"db","available":true,"required":true,"for":"storage"}]`
	exe := rawModule(t, "m", describeWith("m", capability, extra), "exit 0")
	code, out, _ := run(t, "--home", home, "validate", exe)
	if code != ExitOK || !strings.Contains(out, "m: valid (ready)") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		`warning:   descriptor: capabilites: unknown key; did you mean "capabilities"?`,
		`warning:   descriptor: capabilities[0].request_shema: unknown key; did you mean "request_schema"?`,
		`warning:   descriptor: request_schemas["m.go.request/v1"]: no capability's request_schema references it`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "required") || strings.Contains(out, `"for"`) {
		t.Errorf("requirements' required/for reported:\n%s", out)
	}
}

// TestValidateZeroCapabilitiesAndSchemaTypo: no capability is a warning;
// a JSON Schema keyword typo names the keyword meant.
func TestValidateZeroCapabilitiesAndSchemaTypo(t *testing.T) {
	home := t.TempDir()
	exe := rawModule(t, "m", describeWith("m", "", `,"request_schemas":{"r/v1":{"type":"object","properties":{"n":{"type":"integer","minimun":1}}}}`), "exit 0")
	_, out, _ := run(t, "--home", home, "validate", exe)
	for _, want := range []string{"capabilities: declares no capability", `/properties/n/minimun: "minimun" is not a JSON Schema keyword, so validators ignore it; did you mean "minimum"?`} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
}

// TestFirstMistakeMessages: the messages for the first mistakes of a
// module author, from real script modules run contained.
func TestFirstMistakeMessages(t *testing.T) {
	cases := []struct {
		name, invoke string
		want         []string
		never        []string
	}{
		{"log line first", `echo "loading model..."; echo '{}'`,
			[]string{`stdout starts with "loading model...\n{}\n", not the JSON envelope`, "print logs and progress to stderr"}, nil},
		{"crash", `echo "Traceback (most recent call last):" >&2; echo "KeyError: 'title'" >&2; exit 3`,
			[]string{"exited with status 3 before writing an envelope", "stderr ends: Traceback (most recent call last): | KeyError: 'title'"}, nil},
		{"wrong type", `echo '{"protocol":"xibodev.module/v1","module":"m","operation":"invoke","request_id":"x","ok":false,"error":"cannot open db","warnings":[],"execution":{}}'`,
			[]string{`envelope field error: must be an object, got a string "cannot open db"`},
			[]string{"Go struct", "modproto.", "unmarshal"}},
	}
	for _, c := range cases {
		home := t.TempDir()
		exe := rawModule(t, "m", describeWith("m", okCapability, ""), c.invoke)
		code, out, errOut := run(t, "--home", home, "--module", exe, "invoke", "m", "m.go")
		all := out + errOut
		if code != ExitHostVerdict {
			t.Errorf("%s: exit %d\n%s", c.name, code, all)
		}
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: lacks %q:\n%s", c.name, w, all)
			}
		}
		for _, n := range c.never {
			if strings.Contains(all, n) {
				t.Errorf("%s: has %q:\n%s", c.name, n, all)
			}
		}
	}
	// A describe that crashes says so too, with its status.
	home := t.TempDir()
	exe := filepath.Join(t.TempDir(), "m")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\necho 'ImportError: no module named yaml' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, out, _ := run(t, "--home", home, "validate", exe)
	if !strings.Contains(out, "exited with status 3 before writing an envelope; stderr ends: ImportError: no module named yaml") {
		t.Errorf("describe crash:\n%s", out)
	}
}

// TestInvokeRefusesUnsatisfiableCapability: a capability whose request
// schema no input satisfies is refused by invoke (the finding and its
// JSON pointer, exit as a descriptor error, nothing run); the module's
// other capability still runs.
func TestInvokeRefusesUnsatisfiableCapability(t *testing.T) {
	home := t.TempDir()
	closed := `{"id":"m.closed","title":"Closed","summary":"Never","request_schema":"closed","effects":{"local":true,"provider":"local","cost_known":true}}`
	schemas := `,"request_schemas":{"closed":{"type":"object","properties":{"a":{"type":"string"}},"required":["b"],"additionalProperties":false}}`
	exe := rawModule(t, "m", describeWith("m", okCapability+","+closed, schemas), "echo MODULE-RAN >&2; exit 9")
	code, out, _ := run(t, "--home", home, "validate", exe)
	if code != ExitHostVerdict || !strings.Contains(out, "m: valid (ready); 1 capability refused, as no input satisfies its request schema: m.closed") ||
		strings.Count(out, `requires "b"`) != 1 {
		t.Fatalf("validate: exit %d\n%s", code, out)
	}
	code, out, errOut := run(t, "--home", home, "invoke", exe, "m.closed", "--input", `{"a":"x"}`)
	if code != ExitHostVerdict || !strings.Contains(out+errOut, `admits no input`) || !strings.Contains(out+errOut, `at (root): requires "b"`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, "MODULE-RAN") {
		t.Errorf("the module ran:\n%s%s", out, errOut)
	}
	code, out, errOut = run(t, "--home", home, "invoke", exe, "m.go")
	if strings.Contains(out+errOut, "admits no input") || strings.Contains(out+errOut, "broken") {
		t.Fatalf("m.go refused (exit %d):\n%s%s", code, out, errOut)
	}
}
