package skills

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"modbay/examples"
	"modbay/modproto"
)

// TestExampleModuleDocs: every skill and overlay the example modules
// declare loads from its installed bundle with a matching digest, parses
// (skills) and carries a token estimate; editing one installed file makes
// it drifted.
func TestExampleModuleDocs(t *testing.T) {
	dirs, err := examples.InstallModules(t.TempDir(), "/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	var first Doc
	n := 0
	for i, id := range examples.IDs() {
		var out, errb bytes.Buffer
		examples.Main([]string{id, "module", "describe", "--json"}, &out, &errb)
		env, err := modproto.DecodeEnvelope(out.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		d, err := modproto.DecodeDescriptor(env.Result)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range Docs(id, dirs[i], d) {
			n++
			b, err := doc.Load()
			if err != nil {
				t.Errorf("%s %s: %v", id, doc.ID, err)
				continue
			}
			if doc.Tokens <= 0 || doc.Body(b) == "" {
				t.Errorf("%s %s: tokens %d", id, doc.ID, doc.Tokens)
			}
			if doc.Kind == KindSkill {
				if _, err := Parse(b, filepath.Base(filepath.Dir(doc.Path))); err != nil {
					t.Errorf("%s %s: %v", id, doc.ID, err)
				}
				if first.ID == "" {
					first = doc
				}
			}
		}
	}
	if n < 8 {
		t.Fatalf("only %d module documents", n)
	}
	p := filepath.Join(first.Dir, first.Path)
	b, _ := os.ReadFile(p)
	os.WriteFile(p, append(b, '\n'), 0o644)
	if _, err := first.Load(); !errors.Is(err, ErrDrifted) {
		t.Errorf("an edited bundle file loads: %v", err)
	}
}
