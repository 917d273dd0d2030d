package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"modbay/modproto"
)

// maxExportArtifactBytes bounds one artifact copied by Export: staged
// artifacts are bounded by the run's output ceiling already; this keeps a
// tampered record from naming a huge file.
const maxExportArtifactBytes = 1 << 30

// Exported says what Export wrote, paths relative to its directory.
type Exported struct {
	Dir   string
	Files []string
	// Missing lists artifacts whose staged file is gone or unsafe, with
	// why.
	Missing []string
}

// Export writes run rec into dir (created 0700 when missing), a folder to
// attach to a bug report: record.json (the whole record), request.json
// (the request as sent, input redacted), envelope.json (when one decoded),
// stderr.txt (the tail) and artifacts/ holding a copy of each staged
// artifact under its declared file name. Staged files are read only from
// beneath artifactsDir (the store, <home>/artifacts). Files are 0600.
func Export(rec *Record, dir, artifactsDir string) (*Exported, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	out := &Exported{Dir: dir}
	write := func(name string, b []byte) error {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return err
		}
		out.Files = append(out.Files, name)
		return nil
	}
	whole, _ := modproto.EncodeJSONIndent(rec, "  ")
	if err := write("record.json", append(whole, '\n')); err != nil {
		return nil, err
	}
	req := rec.Plan(nil).Request
	req.Normalize()
	rb, _ := modproto.EncodeJSONIndent(req, "  ")
	if err := write("request.json", append(rb, '\n')); err != nil {
		return nil, err
	}
	if len(rec.Envelope) > 0 {
		// Indented as sent: its keys in the module's order.
		eb := rec.Envelope
		var ib bytes.Buffer
		if json.Indent(&ib, rec.Envelope, "", "  ") == nil {
			eb = ib.Bytes()
		}
		if err := write("envelope.json", append(eb, '\n')); err != nil {
			return nil, err
		}
	}
	if err := write("stderr.txt", []byte(rec.StderrTail)); err != nil {
		return nil, err
	}
	if len(rec.Artifacts) == 0 {
		return out, nil
	}
	adir := filepath.Join(dir, "artifacts")
	if err := os.MkdirAll(adir, 0o700); err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, a := range rec.Artifacts {
		name := exportName(a.Artifact, used)
		if err := copyStaged(a.Staged, artifactsDir, filepath.Join(adir, name)); err != nil {
			out.Missing = append(out.Missing, fmt.Sprintf("%s: %v", a.ID, err))
			continue
		}
		out.Files = append(out.Files, filepath.Join("artifacts", name))
	}
	return out, nil
}

// exportName is a safe, unique file name for a: its declared path's base
// name with anything but letters, digits, '.', '_', '-' replaced, prefixed
// by its id when taken.
func exportName(a modproto.Artifact, used map[string]bool) string {
	clean := func(s string) string {
		s = strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
				return r
			}
			return '_'
		}, s)
		s = strings.TrimLeft(s, ".")
		if len(s) > 100 {
			s = s[len(s)-100:]
		}
		return s
	}
	name := clean(filepath.Base(filepath.FromSlash(a.Path)))
	if name == "" {
		name = "artifact"
	}
	if used[name] {
		name = clean(a.ID) + "-" + name
	}
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%d-%s", i, name)
	}
	used[name] = true
	return name
}

// copyStaged copies a staged artifact, which must lie beneath store, to
// dst.
func copyStaged(staged, store, dst string) error {
	if staged == "" {
		return errors.New("not staged")
	}
	rel, err := filepath.Rel(store, staged)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("staged path %q is outside the artifact store", staged)
	}
	f, err := os.Open(staged)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	w, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, io.LimitReader(f, maxExportArtifactBytes)); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
