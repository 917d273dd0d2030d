package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"modbay/modproto"
)

// ProviderFS is the Key.Type of a skill read from a folder.
const ProviderFS = "fs"

// Key identifies an indexed skill: provider type, name as listed (perhaps
// disambiguated, "name#1a2b3c4d") and location (the folder, absolute).
type Key struct {
	Type     string `json:"type"`
	Name     string `json:"name"`
	Location string `json:"location"`
}

// Record is one indexed skill folder (the runtime's skill index record,
// docs/skills.md "The index record"): what its SKILL.md declares, its resources,
// warnings and digest. A skill that cannot be used has Err set and only
// Key, Name and Location filled.
type Record struct {
	Key         Key    `json:"key"`
	Name        string `json:"name"`
	Description string `json:"description"`
	DisplayName string `json:"displayName,omitempty"`
	// Insert is InsertInstructions or InsertUserMessage.
	Insert    string       `json:"insert"`
	Arguments []Argument   `json:"arguments,omitempty"`
	Resources ResourceInfo `json:"resources"`
	// RawFrontmatter is the frontmatter as parsed, every key.
	RawFrontmatter map[string]any `json:"rawFrontmatter,omitempty"`
	// Warnings are the problems, one line each.
	Warnings []string `json:"warnings,omitempty"`
	// Problems are the same, with whether each breaks a rule.
	Problems []Problem `json:"problems,omitempty"`
	// Digest is "sha256:<hex>" of SKILL.md's bytes as read.
	Digest string `json:"digest,omitempty"`
	// Bytes is SKILL.md's size.
	Bytes int `json:"bytes"`
	// Tokens is modbay's estimate of SKILL.md's context cost (EstimateTokens).
	Tokens int `json:"tokens"`
	// Source says where the skill was found ("project", "home",
	// "config", "flag", "dir").
	Source string `json:"source,omitempty"`
	// ModuleWritable is true when the folder lies inside a module's
	// writable root (the workspace, the state folders): a module may have
	// written it. Who did is not known (a project's own skills sit in the
	// workspace when --workspace names the project).
	ModuleWritable bool `json:"moduleWritable,omitempty"`
	// Err says why the skill cannot be used ("" when it can).
	Err string `json:"error,omitempty"`
	// Body is SKILL.md without its frontmatter (not in JSON: `skills
	// show` renders it).
	Body string `json:"-"`
}

// Usable reports whether the skill can be given to an agent.
func (r *Record) Usable() bool { return r.Err == "" }

// Strict reports whether some problem breaks a rule (a validator fails).
func (r *Record) Strict() bool {
	return slices.ContainsFunc(r.Problems, func(p Problem) bool { return p.Strict })
}

// bytesPerToken is the rough size of one model token of English text.
const bytesPerToken = 4

// EstimateTokens is modbay's estimate of a text's context cost when no
// one declared it: bytes ÷ 4, rounded up (shown with "≈").
func EstimateTokens(n int) int { return (n + bytesPerToken - 1) / bytesPerToken }

// Index reads the skill folder dir: its SKILL.md, confined to dir (a
// symlink out of it is refused), and its resources. The Record is always
// filled as far as known; the error (wrapping ErrUnusable when the file
// was read but breaks a rule that makes it unusable) is also in Err.
func Index(dir string) (Record, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Record{Err: err.Error()}, err
	}
	base := filepath.Base(abs)
	r := Record{Key: Key{Type: ProviderFS, Name: base, Location: abs}, Name: base, Insert: InsertInstructions}
	fail := func(err error) (Record, error) {
		r.Err = err.Error()
		return r, err
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return fail(fmt.Errorf("skill folder %s: %w", abs, err))
	}
	defer root.Close()
	data, err := readCapped(root, FileName, MaxFileBytes)
	if err != nil {
		return fail(err)
	}
	r.Digest = modproto.Digest(data)
	r.Bytes = len(data)
	r.Tokens = EstimateTokens(len(data))
	r.Resources, err = resources(root)
	if err != nil {
		return fail(fmt.Errorf("skill folder %s: list resources: %w", abs, err))
	}
	p, err := Parse(data, base)
	if err != nil {
		return fail(err)
	}
	r.Key.Name, r.Name = p.Name, p.Name
	r.Description, r.DisplayName, r.Insert = p.Description, p.DisplayName, p.Insert
	r.Arguments, r.RawFrontmatter, r.Body = p.Arguments, p.Raw, p.Body
	r.Problems, r.Warnings = p.Problems, p.Warnings()
	return r, nil
}

// readCapped reads the regular file name under root, at most limit bytes;
// a bigger file is unusable.
func readCapped(root *os.Root, name string, limit int64) ([]byte, error) {
	// Non-blocking: opening a FIFO for reading would wait for a writer
	// (a module's FIFO skill file hung `modbay skills`).
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: no %s in the folder", ErrUnusable, name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrUnusable, name)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: %s is more than the %d bytes allowed", ErrUnusable, name, limit)
	}
	return data, nil
}

// resources lists the regular files under root other than the top
// SKILL.md, slash-relative in walk order (each folder's entries by name),
// the first MaxResourceLocations of them. Symlinks are neither listed nor followed.
func resources(root *os.Root) (ResourceInfo, error) {
	var info ResourceInfo
	err := fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // an unreadable subfolder lists nothing
		}
		if !d.Type().IsRegular() || p == FileName {
			return nil
		}
		info.TotalCount++
		if len(info.Locations) < MaxResourceLocations {
			info.Locations = append(info.Locations, p)
		}
		return nil
	})
	info.HasResources = info.TotalCount > 0
	info.MoreLocations = info.TotalCount > len(info.Locations)
	return info, err
}
