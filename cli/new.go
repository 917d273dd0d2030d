package cli

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"modbay/modkit"
	"modbay/runner"
)

// templates are the module scaffolds `modbay new` writes; docs/modules.md
// shows them, rendered for the id "hello", as its worked examples
// (new_test.go keeps the two equal).
//
//go:embed templates
var templates embed.FS

// templateID is the placeholder every template carries for the module id.
const templateID = "MODULE_ID"

// Languages `modbay new` writes a module in.
const (
	LangPython = "python"
	LangGo     = "go"
	LangSh     = "sh"
)

// moduleIDPattern is what `modbay new` accepts as an id: it becomes a
// directory, a file and a capability prefix, so letters, digits, dots,
// dashes and underscores, starting with a letter, at most 64.
var moduleIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9._-]{0,63}$`) })

// NewOptions is what `modbay new` was asked to do.
type NewOptions struct {
	IO *ioStreams
	// ID is the module id.
	ID string
	// Lang is LangPython, LangGo or LangSh.
	Lang string
	// Dir is where the module goes (default ./ID); it must not exist or be
	// empty.
	Dir string
	// Repeat gives the flags of the lines it prints (globals.repeat).
	Repeat func() runner.Globals
}

// scaffoldFile is one file `modbay new` writes: its name in the module
// directory, its template and its mode.
type scaffoldFile struct {
	name, template string
	mode           fs.FileMode
}

// scaffold lists the files of a module in lang, the executable first.
func scaffold(id, lang string) []scaffoldFile {
	switch lang {
	case LangPython:
		return []scaffoldFile{{id, "templates/python/module.py", 0o755}, {"modbay_module.py", "templates/python/modbay_module.py", 0o644},
			{"README.md", "templates/README.md.tmpl", 0o644}}
	case LangSh:
		return []scaffoldFile{{id, "templates/sh/module.sh", 0o755}, {"README.md", "templates/README.md.tmpl", 0o644}}
	case LangGo:
		// modkit/modkit.go is modkit.Source, the repository's own package.
		return []scaffoldFile{{"main.go", "templates/go/main.go.tmpl", 0o644}, {"go.mod", "templates/go/go.mod.tmpl", 0o644},
			{"modkit/modkit.go", modkitTemplate, 0o644}, {"README.md", "templates/README.md.tmpl", 0o644}}
	}
	return nil
}

// modkitTemplate names the author library in scaffold: its text is
// modkit.Source, written as is.
const modkitTemplate = "modkit"

// renderTemplate returns template name with the module id (and, for the
// README, the language's lines) filled in.
func renderTemplate(name, id, lang string) (string, error) {
	if name == modkitTemplate {
		return modkit.Source, nil
	}
	b, err := templates.ReadFile(name)
	if err != nil {
		return "", err
	}
	s := string(b)
	if strings.HasSuffix(name, "README.md.tmpl") {
		layout := map[string]string{
			LangPython: "`MODULE_ID` is the executable (Python 3, standard library only); `modbay_module.py` beside it writes the protocol's side.",
			LangSh:     "`MODULE_ID` is the executable (POSIX sh; it calls `jq` and `sha256sum`, declared as binaries).",
			LangGo:     "`main.go` is the source, `modkit/` the protocol's side (standard library only); build the executable `MODULE_ID` with `go build -o MODULE_ID .`.",
		}[lang]
		build := map[string]string{LangGo: "go build -o MODULE_ID .\n"}[lang]
		reqs := map[string]string{LangSh: "and the binaries `jq` and `sha256sum` (listed as requirements: without them the module shows \"needs setup\")"}[lang]
		r := strings.NewReplacer("LANGUAGE", lang, "LAYOUT", layout, "BUILD_LINE", build, " REQUIREMENTS", map[bool]string{true: " " + reqs, false: ""}[reqs != ""])
		s = r.Replace(s)
	}
	return strings.ReplaceAll(s, templateID, id), nil
}

// newNewCommand builds `modbay new`; runF, when non-nil, replaces newRun.
func newNewCommand(g *globals, runF func(context.Context, *NewOptions) error) *cobra.Command {
	opts := &NewOptions{IO: g.io, Repeat: g.repeat}
	cmd := &cobra.Command{
		Use:   "new ID [--lang python|go|sh] [--dir DIR]",
		Short: "Write a working module to start from",
		Long: `Write a working module named ID into DIR (default ./ID): its executable
(python, sh) or main.go with go.mod and modkit/, the author library (go, with
the line that builds it), and a README.

The module describes itself, declares one capability (ID.report) with a
request schema (a string, an enum, a number and an optional object), checks its
input and answers invalid_request on a bad one, and writes a markdown and a CSV
artifact under its own write root. It passes modbay validate as written. The
guide to every rule it follows: docs/modules.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return newRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Lang, "lang", LangPython, "language: python, go or sh")
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "directory to write the module into (default ./ID)")
	return cmd
}

// newRun writes the module's files; it refuses a bad id or language, and
// a directory that exists and is not empty (nothing is overwritten).
func newRun(_ context.Context, o *NewOptions) error {
	if !moduleIDPattern().MatchString(o.ID) {
		return withCode(ExitUsage, "module id %q: use lower-case letters, digits, '.', '-' or '_', starting with a letter (at most 64)", o.ID)
	}
	files := scaffold(o.ID, o.Lang)
	if files == nil {
		return withCode(ExitUsage, "--lang %q: choose python, go or sh", o.Lang)
	}
	dir := o.Dir
	if dir == "" {
		dir = o.ID
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return withCode(ExitUsage, "%s is not empty: choose another --dir", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return withCode(ExitUsage, "%v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	for _, f := range files {
		text, err := renderTemplate(f.template, o.ID, o.Lang)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f.name)), 0o755); err != nil {
			return withCode(ExitUsage, "%v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(text), f.mode); err != nil {
			return withCode(ExitUsage, "%v", err)
		}
	}
	out := o.IO.Out
	fmt.Fprintf(out, "wrote module %s (%s) in %s\n", o.ID, o.Lang, dir)
	// The lines name the module by its absolute path and carry the home:
	// pasted from any directory they act on this module and this home.
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	exe := filepath.Join(abs, o.ID)
	var rep runner.Globals
	if o.Repeat != nil {
		rep = o.Repeat()
	}
	if o.Lang == LangGo {
		fmt.Fprintf(out, "build it:  (cd %s && go build -o %s .)\n", runner.ShellQuote(abs), runner.ShellQuote(o.ID))
	}
	fmt.Fprintf(out, "check it:  %s   (then: %s, a conformance run)\n", rep.Line("validate", exe), rep.Line("check", exe))
	fmt.Fprintf(out, "run it:    %s\n", rep.Line("invoke", exe, o.ID+".report", "--input", `{"title": "Hello"}`))
	return nil
}
