package runner

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"modbay/modproto"
)

// exeIdentity is an executable's stat-keyed identity record, kept in its
// describe cache entry (docs/protocol.md §18): its stat fields are the
// executable's part of the fingerprint (fingerprint), so discovery never
// reads an executable. The digest is computed only where the bytes are the
// rule (identify: a pre_approved digest), reused while the stat is the same.
type exeIdentity struct {
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	Size    int64  `json:"size"`
	MtimeNS int64  `json:"mtime_ns"`
	CtimeNS int64  `json:"ctime_ns"`
	// SHA256 is "sha256:<hex>" of the bytes as they were when the stat
	// fields were read.
	SHA256 string `json:"sha256,omitempty"`
}

// sameFile reports whether a and b carry the same stat fields (the digest
// aside).
func (a exeIdentity) sameFile(b exeIdentity) bool {
	return a.Dev == b.Dev && a.Ino == b.Ino && a.Size == b.Size && a.MtimeNS == b.MtimeNS && a.CtimeNS == b.CtimeNS
}

// fingerprint is a's stat fields as a process driver's fingerprint of
// the executable ("file dev=… ino=… size=… mtime_ns=… ctime_ns=…"): it
// changes with any change to the file, since the kernel sets the ctime on
// every write, rename onto, chmod and utime, and no one can set it back.
func (a exeIdentity) fingerprint() string {
	return fmt.Sprintf("file dev=%d ino=%d size=%d mtime_ns=%d ctime_ns=%d", a.Dev, a.Ino, a.Size, a.MtimeNS, a.CtimeNS)
}

// statIdentity is fi's stat fields, without the digest.
func statIdentity(fi os.FileInfo) exeIdentity {
	id := exeIdentity{Size: fi.Size(), MtimeNS: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.Dev, id.Ino = uint64(st.Dev), st.Ino
		id.CtimeNS = st.Ctim.Sec*1e9 + st.Ctim.Nsec
	}
	return id
}

// ExeChanged reports whether m's executable was edited in place since m
// was described: its device, inode, size, mtime or ctime differs now, or
// it is gone. One stat, no read: cheap enough before every call of a host
// that serves m long after discovery (the gateway). A file beside the
// executable (a launcher's script) is not looked at; Host.Changed hashes
// both. False when m keeps no stat (an MCP server, an example).
func (m *Module) ExeChanged() bool {
	if m == nil || m.exeStat == nil || m.Exe == "" {
		return false
	}
	fi, err := os.Stat(m.Exe)
	return err != nil || !m.exeStat.sameFile(statIdentity(fi))
}

// identify returns exe's identity. When prev has the same stat fields and
// a digest, the digest is reused and the file is not read; otherwise the
// file is hashed whole. The stat is taken from the open file before it is
// read, so a file changed while being hashed has a newer ctime than the
// record and is hashed again next time.
func identify(exe string, prev *exeIdentity) (exeIdentity, error) {
	fi, err := os.Stat(exe)
	if err != nil {
		return exeIdentity{}, err
	}
	id := statIdentity(fi)
	if prev != nil && prev.SHA256 != "" && prev.sameFile(id) {
		id.SHA256 = prev.SHA256
		return id, nil
	}
	f, err := os.Open(exe)
	if err != nil {
		return exeIdentity{}, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return exeIdentity{}, err
	}
	id = statIdentity(fi)
	if id.SHA256, _, err = modproto.DigestReader(f); err != nil {
		return exeIdentity{}, err
	}
	return id, nil
}

// maxDirEntries bounds the module directory listing in the describe cache
// key (docs/protocol.md §18): enough for any launcher's sources, bounded for a
// module directory that holds a whole tree.
const maxDirEntries = 1000

// skippedDirs are directories whose contents never enter the listing:
// package caches and virtual environments change without the module
// changing, and can be huge (docs/protocol.md §18). Dot-directories are
// skipped as well.
var skippedDirs = map[string]bool{"node_modules": true, "venv": true, ".venv": true, "__pycache__": true}

// dirListingDigest is "files=<n> sha256:<hex>" over the module directory's
// files (relative path, size, mtime in ns; the first maxDirEntries in
// lexical walk order, skipping dot-directories and skippedDirs; the
// executable itself excluded, its identity is keyed separately). An edit
// beside a launcher (a script it runs) changes it, so the launcher's
// describe is not served stale. An unreadable directory lists as empty.
func dirListingDigest(dir, exe string) string {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return walkListingDigest(dir, exe)
	}
	h := sha256.New()
	n := 0
	line := make([]byte, 0, 256)
	// walk lists the directory open as d, whose path relative to dir is
	// rel ("" for dir itself), in the order and with the skips of
	// filepath.WalkDir (the same digest as walkListingDigest), but each
	// entry is stat'ed relative to its directory's descriptor: no path is
	// resolved from the root again (warm discovery).
	var walk func(d *os.File, rel string) bool
	walk = func(d *os.File, rel string) bool {
		ents, err := d.ReadDir(-1)
		if err != nil {
			return true
		}
		slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		fd := int(d.Fd())
		for _, e := range ents {
			if n >= maxDirEntries {
				return false
			}
			name := e.Name()
			p := name
			if rel != "" {
				p = rel + "/" + name
			}
			if e.IsDir() {
				if strings.HasPrefix(name, ".") || skippedDirs[name] {
					continue
				}
				sub, err := openDirAt(fd, name)
				if err != nil {
					continue
				}
				more := walk(sub, p)
				sub.Close()
				if !more {
					return false
				}
				continue
			}
			if filepath.Join(dir, p) == exe {
				continue
			}
			var st unix.Stat_t
			if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				continue
			}
			line = append(line[:0], p...)
			line = append(line, 0)
			line = strconv.AppendInt(line, st.Size, 10)
			line = append(line, 0)
			line = strconv.AppendInt(line, st.Mtim.Sec*1e9+st.Mtim.Nsec, 10)
			line = append(line, '\n')
			h.Write(line)
			n++
		}
		return true
	}
	if d, err := os.Open(dir); err == nil {
		walk(d, "")
		d.Close()
	}
	return fmt.Sprintf("files=%d sha256:%s", n, hex.EncodeToString(h.Sum(nil)))
}

// openDirAt opens the directory name beneath the directory open as fd,
// not following a symlink.
func openDirAt(fd int, name string) (*os.File, error) {
	sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(sub), name), nil
}

// walkListingDigest is dirListingDigest through filepath.WalkDir, for a
// module directory that is not a plain directory (WalkDir then lists the
// symlink itself); it is also the reference the descriptor-relative walk
// is tested against.
func walkListingDigest(dir, exe string) string {
	h := sha256.New()
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n >= maxDirEntries {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(d.Name(), ".") || skippedDirs[d.Name()]) {
				return filepath.SkipDir
			}
			return nil
		}
		if p == exe {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s\x00%d\x00%d\n", rel, fi.Size(), fi.ModTime().UnixNano())
		n++
		return nil
	})
	return fmt.Sprintf("files=%d sha256:%s", n, hex.EncodeToString(h.Sum(nil)))
}

// buildID identifies this modbay binary, for the verdict cached with each
// describe (docs/protocol.md §18: modbay's own verdict is keyed also on its
// build id, so a new modbay re-judges every cached descriptor). It is the
// Go build id from the executable's ELF note, read once; where that cannot
// be read, the module build info with the executable's size and mtime.
var buildID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return fallbackBuildID("")
	}
	if id := elfGoBuildID(exe); id != "" {
		return "go:" + id
	}
	return fallbackBuildID(exe)
})

// elfGoBuildID reads the Go build id note (.note.go.buildid: name "Go",
// type 4) of an ELF file; "" when there is none.
func elfGoBuildID(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.go.buildid")
	if s == nil {
		return ""
	}
	b, err := s.Data()
	if err != nil || len(b) < 16 {
		return ""
	}
	namesz, descsz, typ := f.ByteOrder.Uint32(b), f.ByteOrder.Uint32(b[4:]), f.ByteOrder.Uint32(b[8:])
	off := 12 + int((namesz+3)&^3)
	if typ != 4 || namesz != 4 || string(b[12:14]) != "Go" || off+int(descsz) > len(b) {
		return ""
	}
	return string(b[off : off+int(descsz)])
}

// fallbackBuildID is the sha256 of the build info and, when exe is set,
// its size and mtime.
func fallbackBuildID(exe string) string {
	h := sha256.New()
	if bi, ok := debug.ReadBuildInfo(); ok {
		h.Write([]byte(bi.String()))
	}
	if fi, err := os.Stat(exe); exe != "" && err == nil {
		_ = binary.Write(h, binary.LittleEndian, [2]int64{fi.Size(), fi.ModTime().UnixNano()})
	}
	return "info:" + hex.EncodeToString(h.Sum(nil))
}
