package inputs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

const (
	// viewerFile is the viewer's preferences under Store.Dir: '@' is
	// outside the module id grammar, so no module's folder has its name.
	viewerFile = "@viewer.json"
	// maxViewerModules bounds the modules the file remembers; setting one
	// more forgets the one set longest ago.
	maxViewerModules = 500
	// maxViewerBytes bounds the file read back.
	maxViewerBytes = 256 << 10
)

// viewerPrefs is the viewer's file: the modules (MCP servers included,
// by module id) whose plain text is shown rendered as markdown (key m),
// the one set last at the end.
type viewerPrefs struct {
	Markdown []string `json:"markdown"`
}

// Markdown reports whether module's plain text is to be shown as
// markdown: the person turned it on the last time they pressed m in one
// of its artifacts. A missing file is false with no error; an unreadable
// or oversized one is false with the error.
func (s Store) Markdown(module string) (bool, error) {
	p, err := s.readViewer()
	return slices.Contains(p.Markdown, module), err
}

// SetMarkdown remembers module's markdown choice (on: rendered as
// markdown), keeping at most maxViewerModules modules; an unreadable
// file is replaced.
func (s Store) SetMarkdown(module string, on bool) error {
	if s.Dir == "" {
		return nil
	}
	if module == "" {
		return errors.New("inputs: no module to remember the markdown choice for")
	}
	p, _ := s.readViewer()
	p.Markdown = slices.DeleteFunc(p.Markdown, func(m string) bool { return m == module })
	if on {
		p.Markdown = append(p.Markdown, module)
		if n := len(p.Markdown) - maxViewerModules; n > 0 {
			p.Markdown = p.Markdown[n:]
		}
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(s.Dir, viewerFile), b)
}

// readViewer reads the viewer's file, bounded.
func (s Store) readViewer() (viewerPrefs, error) {
	var p viewerPrefs
	if s.Dir == "" {
		return p, nil
	}
	f, err := os.Open(filepath.Join(s.Dir, viewerFile))
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxViewerBytes+1))
	if err != nil {
		return p, err
	}
	if len(b) > maxViewerBytes {
		return viewerPrefs{}, fmt.Errorf("inputs: %s is over %d bytes", viewerFile, maxViewerBytes)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return viewerPrefs{}, fmt.Errorf("inputs: %s: %w", viewerFile, err)
	}
	return p, nil
}
