package inputs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Limits of a capability's file.
const (
	// maxPresets bounds the presets kept per capability; saving one more
	// drops the oldest.
	maxPresets = 50
	// maxFileBytes bounds a file read back: a larger one is refused rather
	// than loaded into the form.
	maxFileBytes = 4 << 20
)

// Saved is what is remembered for one capability.
type Saved struct {
	// Last is the last input planned, nil when none.
	Last   json.RawMessage `json:"last,omitempty"`
	LastAt time.Time       `json:"last_at,omitzero"`
	// Presets are named inputs, oldest first; names are unique.
	Presets []Preset `json:"presets,omitempty"`
	// Draft is an input typed but not sent, kept when the cockpit quit
	// (or ctrl+c was pressed) over it; nil when none. Saving the last
	// input drops it: what was typed then went out.
	Draft   json.RawMessage `json:"draft,omitempty"`
	DraftAt time.Time       `json:"draft_at,omitzero"`
	// DraftText is a draft typed in JSON mode that does not parse, kept
	// as typed ("" when none); it and Draft exclude each other.
	DraftText string `json:"draft_text,omitempty"`
}

// Preset is a named input.
type Preset struct {
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input"`
	SavedAt time.Time       `json:"saved_at"`
}

// Store is the directory the files live in.
type Store struct {
	// Dir is <home>/inputs; empty disables the store.
	Dir string
}

// path is the file of module's capability; ids are made safe as single
// path elements.
func (s Store) path(module, capability string) (string, error) {
	if s.Dir == "" {
		return "", errors.New("no input store configured")
	}
	return filepath.Join(s.Dir, safeName(module), safeName(capability)+".json"), nil
}

// safeName keeps letters, digits, '.', '-', '_' and '@' (a state key's) and replaces the rest,
// so an id never escapes the store ("." and ".." become "_").
func safeName(id string) string {
	b := []byte(id)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' || c == '@'
		if !ok {
			b[i] = '_'
		}
	}
	out := string(b)
	if strings.Trim(out, ".") == "" {
		return "_" + out
	}
	return out
}

// Load reads what is remembered for a capability; nothing remembered is
// an empty Saved and no error.
func (s Store) Load(module, capability string) (Saved, error) {
	var out Saved
	p, err := s.path(module, capability)
	if err != nil {
		return out, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	defer f.Close()
	// The bound holds for what is read, not for a size looked up before.
	b, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return out, err
	}
	if len(b) > maxFileBytes {
		return out, fmt.Errorf("%s: larger than %d bytes", p, maxFileBytes)
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return Saved{}, fmt.Errorf("%s: %w", p, err)
	}
	// The file is indented for people; inputs come back compact, exactly
	// as sent (json.Compact keeps every number's digits).
	out.Last, out.Draft = compact(out.Last), compact(out.Draft)
	for i := range out.Presets {
		out.Presets[i].Input = compact(out.Presets[i].Input)
	}
	return out, nil
}

// SaveLast remembers input as the capability's last input and drops its
// draft.
func (s Store) SaveLast(module, capability string, input json.RawMessage, now time.Time) error {
	return s.update(module, capability, func(sv *Saved) {
		sv.Last, sv.LastAt = input, now
		sv.Draft, sv.DraftText, sv.DraftAt = nil, "", time.Time{}
	})
}

// SaveDraft keeps input, typed but not sent, as the capability's draft
// (replacing an earlier one).
func (s Store) SaveDraft(module, capability string, input json.RawMessage, now time.Time) error {
	return s.update(module, capability, func(sv *Saved) {
		sv.Draft, sv.DraftText, sv.DraftAt = input, "", now
	})
}

// SaveDraftText keeps text, JSON typed but not sent that does not parse,
// as the capability's draft (replacing an earlier one). The caller keeps
// it only when the schema marks no value secret: text cannot be redacted.
func (s Store) SaveDraftText(module, capability, text string, now time.Time) error {
	return s.update(module, capability, func(sv *Saved) {
		sv.Draft, sv.DraftText, sv.DraftAt = nil, text, now
	})
}

// SavePreset saves input under name, replacing a preset of that name.
func (s Store) SavePreset(module, capability, name string, input json.RawMessage, now time.Time) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("a preset needs a name")
	}
	return s.update(module, capability, func(sv *Saved) {
		kept := sv.Presets[:0]
		for _, p := range sv.Presets {
			if p.Name != name {
				kept = append(kept, p)
			}
		}
		sv.Presets = append(kept, Preset{Name: name, Input: input, SavedAt: now})
		if len(sv.Presets) > maxPresets {
			sv.Presets = sv.Presets[len(sv.Presets)-maxPresets:]
		}
	})
}

// update reads, changes and atomically rewrites a capability's file
// (write to a temporary file, then rename), private to the person.
func (s Store) update(module, capability string, change func(*Saved)) error {
	p, err := s.path(module, capability)
	if err != nil {
		return err
	}
	sv, err := s.Load(module, capability)
	if err != nil {
		sv = Saved{} // an unreadable file is replaced, not merged
	}
	change(&sv)
	b, err := json.MarshalIndent(sv, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(p, b)
}

// writeAtomic writes b and a newline to p through a temporary file in
// its directory (made 0700), so a reader never sees half a file.
func writeAtomic(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".inputs-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

// compact returns raw without insignificant space (nil stays nil).
func compact(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return raw
	}
	return buf.Bytes()
}
