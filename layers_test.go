package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// layers is the import rule of AGENTS.md as data: for each package of
// modbay (by its path under the module), the packages of modbay it may
// import. Data flows one way: config → runner → render → ui; modproto
// imports nothing of ours. A package missing from this table fails the
// test, so every new package is placed in the graph on purpose.
var layers = map[string][]string{
	".":                   {"cli", "internal/supervise", "internal/signals"},
	"cli":                 {"config", "examples", "modproto", "render", "runner", "schemalint", "ui", "ui/common", "schema", "contain", "probe", "skills", "history", "mcp", "conform", "modkit", "gateway", "approval", "internal/supervise"},
	"conform":             {"modproto", "schema", "schemalint", "runner"},
	"cellwidth":           {},
	"config":              {"modproto"},
	"contain":             {},
	"examples":            {"modproto", "modkit"},
	"modkit":              {},
	"internal/testcorpus": {},
	"internal/jsonptr":    {},
	"internal/words":      {},
	"internal/crash":      {"internal/supervise"},
	"internal/supervise":  {},
	"internal/signals":    {},
	"mcp":                 {"config", "contain", "modproto", "render", "runner", "schema"},
	"gateway":             {"approval", "config", "history", "mcp", "modproto", "render", "runner", "skills"},
	"approval":            {},
	"modproto":            {},
	"schema":              {"modproto"},
	"schemalint":          {"schema", "modproto"},
	"skills":              {"contain", "modproto"},
	"probe":               {"modproto", "render"},
	"render":              {"cellwidth", "modproto"},
	"runner":              {"config", "modproto", "schema", "schemalint", "contain"},
	"runner/runnertest":   {"modproto", "runner"},
	"history":             {"config", "contain", "modproto", "runner", "schema"},
	"ui":                  {"approval", "config", "contain", "history", "modproto", "render", "runner", "schema", "probe", "skills", "ui/clipboard", "ui/common", "ui/dialog", "ui/form", "ui/formview", "ui/inputs", "ui/list", "ui/styles", "ui/viewer"},
	"ui/common":           {"cellwidth", "ui/styles"},
	"ui/clipboard":        {},
	"ui/styles":           {},
	"ui/dialog":           {"modproto", "render", "runner", "schema", "ui/common", "ui/styles"},
	"ui/form":             {"modproto", "schema"},
	"ui/formview":         {"modproto", "render", "schema", "ui/common", "ui/form", "ui/styles"},
	"ui/inputs":           {"schema"},
	"ui/list":             {"ui/common", "ui/styles"},
	"ui/viewer":           {"modproto", "probe", "render", "runner", "ui/clipboard", "ui/common", "ui/styles"},
	"ui/internal/uitest":  {"contain", "modproto", "runner", "schema"},
}

// leaves are packages every package may import: small helpers that import
// nothing of ours.
var leaves = []string{"internal/crash", "internal/jsonptr", "internal/words"}

// TestLayers reads every non-test Go file of the module and checks its
// imports of modbay packages against layers (AGENTS.md "What may import
// what"). Test files may import more (fixtures, test drivers).
func TestLayers(t *testing.T) {
	const mod = "modbay"
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bench" || name == "screenshots") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		seen[pkg] = true
		allowed, ok := layers[pkg]
		if !ok {
			t.Errorf("%s: package %s is not placed in the import rule (layers_test.go, AGENTS.md)", path, pkg)
			return nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p != mod && !strings.HasPrefix(p, mod+"/") {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(p, mod), "/")
			if !slices.Contains(allowed, dep) && (!slices.Contains(leaves, dep) || slices.Contains(leaves, pkg)) {
				t.Errorf("%s imports %s, which %s may not import (AGENTS.md: what may import what)", path, p, pkg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) < 10 {
		t.Fatalf("walked only %d packages: the walk is broken", len(seen))
	}
}
