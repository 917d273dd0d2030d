package runner

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"modbay/contain"
	"modbay/modproto"
)

// Bounds of the containment inference: it reads only what a module said
// about itself, so it is bounded like any module text.
const (
	// refusalScanBytes is how much of stderr and the error message is read
	// for refused paths.
	refusalScanBytes = 64 << 10
	// refusalMaxPaths bounds the paths named in one hint.
	refusalMaxPaths = 3
)

// refusalWords are what a refused write says in the languages modules are
// written in: strerror(EACCES), strerror(EROFS), strerror(EPERM) and their
// symbolic names (Python's PermissionError, Node's EACCES, Go's *PathError).
var refusalWords = []string{
	"permission denied", "read-only file system", "operation not permitted",
	"eacces", "erofs", "eperm", "permissionerror",
}

// absPathRE finds absolute paths in one line of module text, quoted or bare.
var absPathRE = regexp.MustCompile(`(?:^|[\s'"(:=\[])(/[^\s'"):,\]]+)`)

// LikelyCause infers, from a failed run's own stderr and error message, a
// cause the host can see (docs/protocol.md §5):
//   - a line that says EACCES or EROFS ("Permission denied", "Read-only
//     file system") and names an absolute path outside every rw root of
//     roots: "likely refused by containment: <path> is outside the rw roots
//     (…)"; an existing executable file so named was a program the module
//     does not declare in permissions.subprocess, or a file it read;
//   - a line that says a program was not found ("command not found",
//     "executable file not found"): a missing binary;
//   - a line that says EFBIG ("File too large"): the bound on one file's
//     size, limits.file_size_mb (limits's FileSize).
//
// It is an inference from the module's own words (Landlock's audit records
// need audit netlink, often absent), said as "likely"; "" when nothing
// fits. Paths are module text: sanitize to show.
func LikelyCause(roots map[string]modproto.Root, stderr, message string, limits contain.Limits) string {
	fileSizeLimit := "none set"
	if limits.FileSize > 0 {
		fileSizeLimit = fmt.Sprintf("%d MiB", limits.FileSize>>20)
	}
	var rw, rwNames []string
	for _, name := range slices.Sorted(maps.Keys(roots)) {
		if r := roots[name]; r.Mode == modproto.RootReadWrite {
			rw = append(rw, filepath.Clean(r.Path))
			rwNames = append(rwNames, name)
		}
	}
	text := message + "\n" + stderr
	if len(text) > refusalScanBytes {
		text = text[len(text)-refusalScanBytes:]
	}
	var outside, programs []string
	missing := ""
	tooLarge := false
	for _, line := range strings.Split(text, "\n") {
		low := strings.ToLower(line)
		tooLarge = tooLarge || slices.ContainsFunc(fileTooLargeWords, func(w string) bool { return strings.Contains(low, w) })
		if missing == "" && slices.ContainsFunc(missingWords, func(w string) bool { return strings.Contains(low, w) }) {
			missing = strings.TrimSpace(line)
		}
		for _, p := range refusedIn(line) {
			if slices.Contains(outside, p) || slices.Contains(programs, p) || beneathAny(p, rw) {
				continue
			}
			if len(outside)+len(programs) >= refusalMaxPaths {
				break
			}
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				programs = append(programs, p)
			} else {
				outside = append(outside, p)
			}
		}
	}
	where := "there are none"
	if len(rwNames) > 0 {
		where = strings.Join(rwNames, ", ")
	}
	switch {
	case len(outside) > 0:
		verb := " are"
		if len(outside) == 1 {
			verb = " is"
		}
		return fmt.Sprintf("likely refused by containment: %s%s outside the rw roots (%s); write beneath a root's path from the request (docs/protocol.md §4)",
			strings.Join(outside, ", "), verb, where)
	case len(programs) > 0:
		// An executable file refused may have been run or only opened:
		// the module's words rarely say which.
		return fmt.Sprintf("likely refused by containment: %s: running it needs it in permissions.subprocess, reading it a read root holding it (docs/protocol.md §4)", strings.Join(programs, ", "))
	case missing != "":
		if r := []rune(missing); len(r) > noiseQuoteRunes*2 {
			missing = string(r[:noiseQuoteRunes*2]) + "…"
		}
		return fmt.Sprintf("likely a missing program (%q): declare it under requirements with kind \"binary\" (docs/protocol.md §4)", missing)
	case tooLarge:
		// A program that ignores SIGXFSZ (Python does) gets EFBIG and
		// fails on its own: the bound is the host's.
		return "likely the host's bound on one file's size, limits.file_size_mb (" + fileSizeLimit + "): a write past it fails with EFBIG; raise it in config.yaml (docs/containment.md \"Writes\")"
	}
	return ""
}

// fileTooLargeWords say EFBIG in the words programs print it.
var fileTooLargeWords = []string{"file too large", "efbig"}

// refusedIn is the absolute paths (cleaned, never "/") that line names
// when it says a refusal (refusalWords), none otherwise.
func refusedIn(line string) []string {
	low := strings.ToLower(line)
	if !slices.ContainsFunc(refusalWords, func(w string) bool { return strings.Contains(low, w) }) {
		return nil
	}
	var out []string
	for _, m := range absPathRE.FindAllStringSubmatch(line, -1) {
		if p := filepath.Clean(strings.TrimRight(m[1], ".")); p != "/" {
			out = append(out, p)
		}
	}
	return out
}

// RefusedOutside is the absolute paths, at most refusalMaxPaths, that
// text (a process's stderr, module text: sanitize to show) says were
// refused (EACCES, EPERM, EROFS in the words of LikelyCause) and that lie
// beneath none of dirs: what a sandbox holding only dirs likely refused.
func RefusedOutside(text string, dirs []string) []string {
	if len(text) > refusalScanBytes {
		text = text[len(text)-refusalScanBytes:]
	}
	clean := make([]string, len(dirs))
	for i, d := range dirs {
		clean[i] = filepath.Clean(d)
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for _, p := range refusedIn(line) {
			if len(out) < refusalMaxPaths && !slices.Contains(out, p) && !beneathAny(p, clean) {
				out = append(out, p)
			}
		}
	}
	return out
}

// missingWords are what a shell or runtime says of a program it cannot find.
var missingWords = []string{"command not found", "executable file not found", ": not found"}

// beneathAny reports whether p is one of dirs or beneath one.
func beneathAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
