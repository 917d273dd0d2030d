//go:build linux

package contain

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
)

// maxChain bounds how many interpreters deep execChain follows a script
// (the kernel itself stops at a handful of nested interpreters).
const maxChain = 4

// chainPath is where "#!/usr/bin/env NAME" finds NAME: modules run with
// no environment, so env searches its built-in default, which this
// covers.
var chainPath = []string{"/usr/local/bin", "/usr/bin", "/bin"}

// execChain lists what executing exe needs execute rights on besides exe
// itself: for a script, its interpreter chain (shebangs followed, at most
// maxChain deep; "/usr/bin/env [-S] NAME" also yields NAME as env would
// find it on chainPath), and for each ELF the dynamic loader it names
// (PT_INTERP). Shared libraries are mapped, not executed: reading them is
// enough. Paths are as found; a rule opened on one follows its symlinks.
func execChain(exe string) []string {
	var chain []string
	cur := exe
	for range maxChain {
		next := interpreter(cur)
		if len(next) == 0 {
			break
		}
		chain = append(chain, next...)
		cur = next[len(next)-1]
	}
	return chain
}

// interpreter is what the kernel (and env) run to execute path: the
// shebang interpreter (and env's NAME), or an ELF's loader; nil for a
// static binary or anything unreadable.
func interpreter(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, 256) // the kernel reads at most this much of a shebang line
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	if line, ok := bytes.CutPrefix(head, []byte("#!")); ok {
		line, _, _ = bytes.Cut(line, []byte("\n"))
		fields := strings.Fields(string(line))
		if len(fields) == 0 || !filepath.IsAbs(fields[0]) {
			return nil
		}
		out := []string{fields[0]}
		if filepath.Base(fields[0]) == "env" {
			args := fields[1:]
			for len(args) > 0 && strings.HasPrefix(args[0], "-") {
				args = args[1:] // -S and the like: the program follows
			}
			if len(args) > 0 {
				if p := onChainPath(args[0]); p != "" {
					out = append(out, p)
				}
			}
		}
		return out
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		return nil
	}
	defer ef.Close()
	for _, p := range ef.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			return nil
		}
		if loader := string(bytes.TrimRight(b, "\x00")); filepath.IsAbs(loader) {
			return []string{loader}
		}
	}
	return nil
}

// onChainPath finds name as env would with no PATH: "" when it is not an
// executable file there (a name with a slash is taken as is).
func onChainPath(name string) string {
	if strings.Contains(name, "/") {
		if filepath.IsAbs(name) {
			return name
		}
		return ""
	}
	for _, dir := range chainPath {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}
