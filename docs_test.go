package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ownDocFile are packages whose doc stays in another file than doc.go:
// modkit.go is copied alone beside a module (`modbay new --lang go`).
var ownDocFile = map[string]string{"modkit": "modkit.go"}

// TestPackageDocs: every package of modbay (but the main package and
// bench/) has its doc comment in doc.go, and only there, as one paragraph
// (AGENTS.md "Docs").
func TestPackageDocs(t *testing.T) {
	docs := map[string][]string{} // package dir → files with a package doc
	pkgs := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bench" || name == "screenshots" || name == "templates") {
				return filepath.SkipDir
			}
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if dir == "." || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkgs[dir] = true
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		if f.Doc == nil {
			return nil
		}
		docs[dir] = append(docs[dir], filepath.Base(path))
		if text := strings.TrimSpace(f.Doc.Text()); strings.Contains(text, "\n\n") {
			t.Errorf("%s: the package doc is more than one paragraph", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("walked only %d packages: the walk is broken", len(pkgs))
	}
	for dir := range pkgs {
		want := "doc.go"
		if f, ok := ownDocFile[dir]; ok {
			want = f
		}
		if got := docs[dir]; len(got) != 1 || got[0] != want {
			t.Errorf("%s: package doc in %v, want in %s alone", dir, got, want)
		}
	}
}
