package examples

import (
	"golang.org/x/sys/unix"

	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// bundleFS holds each example's bundle: bundles/<id>/README.md, its skills
// and its agent overlay. The descriptor's digests are computed from these
// bytes, and InstallDemoHome writes exactly these bytes.
//
//go:embed bundles
var bundleFS embed.FS

// seedFS holds the sample workspace: a few markdown notes and a small CSV.
//
//go:embed seed/workspace
var seedFS embed.FS

// Embedded directory roots.
const (
	bundleDir = "bundles"
	seedDir   = "seed/workspace"
)

// File modes InstallDemoHome uses.
const (
	dirMode      fs.FileMode = 0o755
	launcherMode fs.FileMode = 0o755 // a module executable needs an execute bit (docs/protocol.md §2)
	fileMode     fs.FileMode = 0o644
)

// ExampleModuleCommand is the subcommand of the modbay binary that runs an
// example: `modbay example-module <id> module ...`. Launchers exec it.
const ExampleModuleCommand = "example-module"

// mustBundleFile returns the embedded bundle file rel (slash path relative
// to the module directory) of example id. A missing file is a programming
// error and panics; the tests describe every example.
func mustBundleFile(id, rel string) []byte {
	b, err := bundleFS.ReadFile(path.Join(bundleDir, id, rel))
	if err != nil {
		panic(fmt.Sprintf("examples: bundle file %s of %q: %v", rel, id, err))
	}
	return b
}

// bundleFiles lists the slash paths, relative to the module directory, of
// every embedded bundle file of example id, in lexical order.
func bundleFiles(id string) ([]string, error) {
	base := path.Join(bundleDir, id)
	var files []string
	err := fs.WalkDir(bundleFS, base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files = append(files, strings.TrimPrefix(p, base+"/"))
		return nil
	})
	return files, err
}

// maxShebangLine is the longest "#!interpreter arg\n" line launcher
// writes: Linux kernels before 5.1 read only the first 128 bytes of a
// script (BINPRM_BUF_SIZE), and a longer line would name a truncated
// interpreter.
const maxShebangLine = 127

// launcher is the module executable written for example id, installed as
// <dir>/<id>/<id>. When exe fits a shebang line it is
//
//	#!<exe> example-module
//
// so the kernel runs `<exe> example-module <launcher path> <host's args>`
// itself: no shell starts, and the example sees exactly the environment the
// host gave (docs/protocol.md §3: only TMPDIR; a shell adds PWD, bash also SHLVL and
// _). Main takes the launcher path's base name as the id. When exe cannot
// be an interpreter (whitespace or a control character in it, or a line
// past maxShebangLine) it falls back to a /bin/sh script that unsets PWD and
// OLDPWD before exec'ing `<exe> example-module <id> "$@"`; with dash as
// /bin/sh that environment is exact too, with bash SHLVL stays. The host
// runs either with no PATH, so exe must be absolute.
func launcher(exe, id string) []byte {
	if line := "#!" + exe + " " + ExampleModuleCommand + "\n"; len(line) <= maxShebangLine && !strings.ContainsFunc(exe, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return []byte(line)
	}
	return []byte("#!/bin/sh\nunset PWD OLDPWD\nexec " + shellQuote(exe) + " " + ExampleModuleCommand + " " + shellQuote(id) + " \"$@\"\n")
}

// shellQuote quotes s as one POSIX shell word: inside single quotes, where
// each embedded single quote ends the quoting, is backslash-escaped, and
// reopens it.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// InstallDemoHome lays the examples out in the modbay home (docs/protocol.md §2):
//
//   - <home>/modules/<id>/<id>: a launcher (mode 0755, see launcher) that
//     runs `<exe> example-module`; rewritten on every call, because exe
//     may change between builds.
//   - <home>/modules/<id>/README.md, skills/<name>/SKILL.md and
//     agents/<id>.md: the bundle, byte for byte what the descriptor's
//     digests cover; rewritten on every call.
//   - <home>/workspace/: sample notes (markdown) and a small CSV for the
//     notes example, each written only when nothing exists at its path, so
//     a person's files are never overwritten.
//
// home and exe are made absolute (exe should be the running modbay binary,
// os.Executable). A .disabled marker or any other file beside a module is
// left alone. Calling it again is harmless.
func InstallDemoHome(home, exe string) error {
	if home == "" {
		return errors.New("install demo home: home is empty")
	}
	if exe == "" {
		return errors.New("install demo home: the modbay executable path is empty")
	}
	home, err := filepath.Abs(home)
	if err != nil {
		return fmt.Errorf("install demo home: %w", err)
	}
	exe, err = filepath.Abs(exe)
	if err != nil {
		return fmt.Errorf("install demo home: %w", err)
	}
	for _, m := range registry() {
		if err := installModule(filepath.Join(home, "modules", m.id), exe, m.id); err != nil {
			return fmt.Errorf("install demo home: module %q: %w", m.id, err)
		}
	}
	if err := seedWorkspace(filepath.Join(home, "workspace")); err != nil {
		return fmt.Errorf("install demo home: workspace: %w", err)
	}
	return nil
}

// installModule writes example id's launcher and bundle into dir.
func installModule(dir, exe, id string) error {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, id), launcher(exe, id), launcherMode); err != nil {
		return fmt.Errorf("launcher: %w", err)
	}
	files, err := bundleFiles(id)
	if err != nil {
		return err
	}
	for _, rel := range files {
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), dirMode); err != nil {
			return err
		}
		if err := writeFileAtomic(dst, mustBundleFile(id, rel), fileMode); err != nil {
			return fmt.Errorf("bundle file %s: %w", rel, err)
		}
	}
	return nil
}

// seedWorkspace copies the sample workspace into dir, skipping every path
// where something already exists (file, directory or symlink). No write
// follows a symlink (createBeneath): a module may have planted one. dir
// itself, the home's workspace, is made first if missing.
func seedWorkspace(dir string) error {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	return fs.WalkDir(seedFS, seedDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, seedDir+"/")
		b, err := seedFS.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = createBeneath(dir, rel, b, fileMode)
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return nil // a symlink or a file where the sample's folder goes: not ours to seed
		}
		return err
	})
}

// InstallModules writes each example's launcher and bundle into
// <dir>/<id>/ (see InstallDemoHome for the layout) and returns the module
// directories, in IDs order. The host loads them as extra modules, so the
// person's own home keeps its config, workspace and artifacts. dir must
// belong to exe alone (InstallBuiltins keys it by exe): the launchers name
// exe, and another modbay binary must never rewrite them under a running
// cockpit.
func InstallModules(dir, exe string) ([]string, error) {
	if dir == "" || exe == "" {
		return nil, errors.New("install examples: directory and executable must be set")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("install examples: %w", err)
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return nil, fmt.Errorf("install examples: %w", err)
	}
	var dirs []string
	for _, m := range registry() {
		d := filepath.Join(dir, m.id)
		if err := installModule(d, exe, m.id); err != nil {
			return nil, fmt.Errorf("install examples: module %q: %w", m.id, err)
		}
		dirs = append(dirs, d)
	}
	return dirs, nil
}

// SeedWorkspace copies the sample notes and CSV the notes example reads into
// dir, creating it; every path where something already exists is skipped,
// so a person's files are never overwritten.
func SeedWorkspace(dir string) error {
	if err := seedWorkspace(dir); err != nil {
		return fmt.Errorf("seed workspace: %w", err)
	}
	return nil
}

// BuiltinsDir is the directory under the home that holds the built-in
// examples' launchers and bundles, one subdirectory per modbay binary
// (see InstallBuiltins).
const BuiltinsDir = "examples"

// builtinsExeFile, inside one binary's subdirectory, names the binary the
// launchers run, so a later install can tell when it is gone.
const builtinsExeFile = ".exe"

// InstallBuiltins writes the examples for the modbay binary exe into
// <home>/examples/<key>/<id>/ (the layout of InstallModules) and returns
// the module directories in IDs order. key is the first 16 hex digits of
// the sha256 of exe's absolute path, so the paths a person sees in `modbay
// list` stay the same from one run of one binary to the next, and they
// remain there after modbay exits (`<path> module describe --json` works by
// hand); two different binaries sharing a home never rewrite each other's
// launchers under a running cockpit. Each call rewrites its own directory
// (idempotent, atomic per file) and removes the directories of binaries
// that no longer exist (a `go run` build, an uninstalled copy), so they do
// not pile up. Errors name the step that failed.
func InstallBuiltins(home, exe string) ([]string, error) {
	if home == "" || exe == "" {
		return nil, errors.New("install examples: home and executable must be set")
	}
	exe, err := filepath.Abs(exe)
	if err != nil {
		return nil, fmt.Errorf("install examples: %w", err)
	}
	sum := sha256.Sum256([]byte(exe))
	key := hex.EncodeToString(sum[:8])
	root := filepath.Join(home, BuiltinsDir)
	pruneBuiltins(root, key)
	dir := filepath.Join(root, key)
	dirs, err := InstallModules(dir, exe)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(dir, builtinsExeFile), []byte(exe+"\n"), fileMode); err != nil {
		return nil, fmt.Errorf("install examples: %w", err)
	}
	return dirs, nil
}

// pruneBuiltins removes each <root>/<k> (k != keep) whose recorded binary
// no longer exists. A directory without the record is left alone: it may be
// another modbay's install in progress. Failures are ignored: pruning is
// housekeeping.
func pruneBuiltins(root, keep string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == keep {
			continue
		}
		d := filepath.Join(root, e.Name())
		b, err := os.ReadFile(filepath.Join(d, builtinsExeFile))
		if err != nil {
			continue
		}
		exe := strings.TrimSuffix(string(b), "\n")
		if _, err := os.Stat(exe); errors.Is(err, fs.ErrNotExist) && filepath.IsAbs(exe) {
			os.RemoveAll(d)
		}
	}
}
