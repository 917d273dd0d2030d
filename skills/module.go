package skills

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"modbay/modproto"
)

// Kinds of module documents (Doc.Kind).
const (
	// KindSkill is a descriptor's skills entry.
	KindSkill = "skill"
	// KindOverlay is a descriptor's agent_overlays entry.
	KindOverlay = "overlay"
)

// ErrDrifted is wrapped by a *DriftError: the file under the module
// directory is not the one the descriptor's digest names.
var ErrDrifted = errors.New("digest mismatch")

// DriftError is a module document whose bytes do not match its declared
// digest (docs/protocol.md §9): it is refused, and both digests are shown.
type DriftError struct {
	Path     string
	Declared string
	Actual   string
}

// Error implements error.
func (e *DriftError) Error() string {
	return fmt.Sprintf("%s: %v: the descriptor declares %s, the file is %s", e.Path, ErrDrifted, e.Declared, e.Actual)
}

// Unwrap lets errors.Is find ErrDrifted.
func (e *DriftError) Unwrap() error { return ErrDrifted }

// Doc is a skill or agent overlay a module's descriptor declares: a file
// relative to the module directory with a digest and the module's token
// estimate.
type Doc struct {
	// Module is the module's id; Dir its directory.
	Module string `json:"module"`
	Dir    string `json:"dir"`
	// Kind is KindSkill or KindOverlay.
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	// Summary is the skill's summary (overlays have none).
	Summary string `json:"summary,omitempty"`
	// Path is relative to Dir, as declared.
	Path string `json:"path"`
	// Digest is as declared.
	Digest string `json:"digest"`
	// Tokens is the module's estimate (0: none declared).
	Tokens int `json:"tokens,omitempty"`
}

// Docs lists the skills, then the overlays, of descriptor d of the module
// in dir.
func Docs(module, dir string, d *modproto.Descriptor) []Doc {
	if d == nil {
		return nil
	}
	var out []Doc
	for _, s := range d.Skills {
		out = append(out, Doc{Module: module, Dir: dir, Kind: KindSkill, ID: s.ID, Title: s.Title, Summary: s.Summary, Path: s.Path, Digest: s.Digest, Tokens: s.Tokens})
	}
	for _, o := range d.AgentOverlays {
		out = append(out, Doc{Module: module, Dir: dir, Kind: KindOverlay, ID: o.ID, Title: o.Title, Path: o.Path, Digest: o.Digest, Tokens: o.Tokens})
	}
	return out
}

// TokenText shows a token count: the module's estimate as declared
// ("1200 tokens"), else modbay's estimate from size bytes with "≈"
// ("≈ 300 tokens"); "" when neither is known.
func TokenText(declared, size int) string {
	switch {
	case declared > 0:
		return fmt.Sprintf("%d tokens", declared)
	case size > 0:
		return fmt.Sprintf("≈ %d tokens", EstimateTokens(size))
	}
	return ""
}

// Load reads doc's file beneath its module directory (confined: an
// absolute path, "..", or a symlink out of the directory is refused), at
// most MaxFileBytes, and checks its digest: a file that does not match is
// a *DriftError and its bytes are not returned.
func (doc Doc) Load() ([]byte, error) {
	rel, err := confine(doc.Path)
	if err != nil {
		return nil, fmt.Errorf("module %s: %s %q: %w", doc.Module, doc.Kind, doc.ID, err)
	}
	root, err := os.OpenRoot(doc.Dir)
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", doc.Module, err)
	}
	defer root.Close()
	data, err := readCapped(root, rel, MaxFileBytes)
	if err != nil {
		if strings.Contains(err.Error(), "path escapes") {
			err = ErrOutsideSkill
		}
		return nil, fmt.Errorf("module %s: %s %q: %w", doc.Module, doc.Kind, doc.ID, err)
	}
	if got := modproto.Digest(data); got != doc.Digest {
		return nil, &DriftError{Path: doc.Path, Declared: doc.Digest, Actual: got}
	}
	return data, nil
}

// Body is the Markdown to show for a loaded document: a skill's SKILL.md
// without its frontmatter when it parses (else the whole file), an
// overlay as it is.
func (doc Doc) Body(data []byte) string {
	if doc.Kind == KindSkill {
		if p, err := Parse(data, ""); err == nil {
			return p.Body
		}
	}
	return strings.ReplaceAll(string(data), "\r\n", "\n")
}
