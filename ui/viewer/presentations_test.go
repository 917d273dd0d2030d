package viewer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"modbay/modproto"
)

// renderFallback are the presentations render.Artifact shows as the
// artifact's metadata on purpose: a download is its metadata, and an
// image grid is a run's images, which one file cannot show.
var renderFallback = map[string]bool{
	modproto.PresentationDownload:  true,
	modproto.PresentationImageGrid: true,
}

// TestEveryPresentationHandled walks every presentation of
// modproto.Presentations (docs/protocol.md §10) through the renderer's
// switch (render.artifact) and the viewer's (load, which hands what it
// does not switch on to render.Artifact), so a primitive added to the
// protocol without a renderer or a viewer fails here.
func TestEveryPresentationHandled(t *testing.T) {
	names := presentationConstants(t, "../../modproto/presentation.go")
	rendered := presentationCases(t, "../../render/render.go", "artifact")
	viewed := presentationCases(t, "load.go", "load")
	for _, p := range modproto.Presentations {
		name, ok := names[p]
		if !ok {
			t.Errorf("presentation %q has no Presentation constant in modproto", p)
			continue
		}
		if !rendered[name] && !renderFallback[p] {
			t.Errorf("render.artifact does not handle presentation %q (modproto.%s)", p, name)
		}
		if !viewed[name] && !rendered[name] {
			t.Errorf("the viewer's load does not handle presentation %q (modproto.%s), nor does the renderer it falls back on", p, name)
		}
	}
}

// presentationConstants maps each presentation value to the name of its
// constant in file ("video" → "PresentationVideo").
func presentationConstants(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != len(vs.Values) {
			return true
		}
		for i, id := range vs.Names {
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || !strings.HasPrefix(id.Name, "Presentation") {
				continue
			}
			v, _ := strconv.Unquote(lit.Value)
			out[v] = id.Name
		}
		return true
	})
	return out
}

// presentationCases is the set of modproto.Presentation* constants named
// in the case clauses of function fn in file.
func presentationCases(t *testing.T, file, fn string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	found := false
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn || fd.Recv != nil {
			continue
		}
		found = true
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			cc, ok := n.(*ast.CaseClause)
			if !ok {
				return true
			}
			for _, e := range cc.List {
				if sel, ok := e.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "modproto" && strings.HasPrefix(sel.Sel.Name, "Presentation") {
						out[sel.Sel.Name] = true
					}
				}
			}
			return true
		})
	}
	if !found {
		t.Fatalf("%s: no function %s", file, fn)
	}
	return out
}
