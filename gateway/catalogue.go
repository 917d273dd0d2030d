package gateway

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Each serve process publishes the catalogue it serves beside its
// sessions (<home>/serve/sessions/<pid>.tools.json), so the cockpit's
// agent tools screen shows what an agent of this home is served, with
// serve's own workspace and patterns, not what the cockpit would serve.

// catalogueSuffix ends a process's published catalogue.
const catalogueSuffix = ".tools.json"

// maxCatalogueFile bounds a published catalogue read, in bytes.
const maxCatalogueFile = 8 << 20

// Catalogue is the tools one serve process serves (and withholds) now.
type Catalogue struct {
	// PID is the serve process's; Workspace the workspace its calls get;
	// Tools and Exclude its patterns (flags, else config.yaml's).
	PID       int      `json:"pid"`
	Workspace string   `json:"workspace"`
	Tools     []string `json:"tools,omitempty"`
	Exclude   []string `json:"exclude,omitempty"`
	// Written is when the catalogue was last refreshed.
	Written time.Time       `json:"written"`
	Served  []CatalogueTool `json:"served"`
}

// CatalogueTool is one tool as a serve process serves it, or withholds
// it until its changed definition is accepted.
type CatalogueTool struct {
	Tool *mcp.Tool `json:"tool"`
	// Select is what --tools and --exclude match (SelectID).
	Select string `json:"select"`
	// Definition is what its pin covers (accepting pins it).
	Definition json.RawMessage `json:"definition"`
	// Withheld says its definition changed since pinned.
	Withheld bool `json:"withheld,omitempty"`
}

// publishCatalogue writes the catalogue served now (next) and withheld
// for the cockpit; nothing when Options.Sessions is "". Errors are
// ignored: serving never fails for want of being shown.
func (s *Server) publishCatalogue(next map[string]*entry, withheld map[string]withheldTool) {
	dir := s.opts.Sessions
	if dir == "" {
		return
	}
	c := Catalogue{PID: os.Getpid(), Workspace: s.host().Config().Workspace, Tools: s.opts.Tools, Exclude: s.opts.Exclude, Written: time.Now().UTC()}
	add := func(e *entry, held bool) {
		c.Served = append(c.Served, CatalogueTool{Tool: e.tool, Select: SelectID(e.module.ID, e.cap.ID), Definition: definition(e), Withheld: held})
	}
	for _, e := range next {
		add(e, false)
	}
	for _, w := range withheld {
		if w.e != nil {
			add(w.e, true)
		}
	}
	slices.SortFunc(c.Served, func(a, b CatalogueTool) int { return strings.Compare(a.Tool.Name, b.Tool.Name) })
	b, err := json.Marshal(c)
	if err != nil || os.MkdirAll(dir, 0o700) != nil {
		return
	}
	path := filepath.Join(dir, strconv.Itoa(os.Getpid())+catalogueSuffix)
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	if s.base.Err() != nil {
		return
	}
	tmp := path + ".tmp"
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, path)
	}
}

// unpublishCatalogue removes this process's catalogue (at its end).
func (s *Server) unpublishCatalogue() {
	if dir := s.opts.Sessions; dir != "" {
		s.pubMu.Lock() // after base ends: no publish follows
		defer s.pubMu.Unlock()
		_ = os.Remove(filepath.Join(dir, strconv.Itoa(os.Getpid())+catalogueSuffix))
	}
}

// ReadCatalogue reads serve process pid's published catalogue from dir
// (<home>/serve/sessions); fs.ErrNotExist when it published none.
func ReadCatalogue(dir string, pid int) (*Catalogue, error) {
	f, err := os.Open(filepath.Join(dir, strconv.Itoa(pid)+catalogueSuffix))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, maxCatalogueFile+1)
	n, _ := readFull(f, b)
	if n > maxCatalogueFile {
		return nil, errors.New("the published catalogue is larger than the bound")
	}
	var c Catalogue
	if err := json.Unmarshal(b[:n], &c); err != nil {
		return nil, err
	}
	c.PID = pid // the file's name says whose it is
	for i := range c.Served {
		if c.Served[i].Tool == nil {
			c.Served[i].Tool = &mcp.Tool{}
		}
	}
	return &c, nil
}

// ReadCatalogues reads the catalogues the home's live serve processes
// published in dir (<home>/serve/sessions), oldest written first; a dead
// process's is removed, one that cannot be read is skipped.
func ReadCatalogues(dir string) []*Catalogue {
	names, _ := os.ReadDir(dir)
	var out []*Catalogue
	for _, n := range names {
		p, ok := strings.CutSuffix(n.Name(), catalogueSuffix)
		pid, err := strconv.Atoi(p)
		if !ok || err != nil {
			continue
		}
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			removeCatalogue(dir, pid)
			continue
		}
		if c, err := ReadCatalogue(dir, pid); err == nil {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b *Catalogue) int { return a.Written.Compare(b.Written) })
	return out
}

// removeCatalogue removes dead process pid's catalogue from dir.
func removeCatalogue(dir string, pid int) {
	_ = os.Remove(filepath.Join(dir, strconv.Itoa(pid)+catalogueSuffix))
}
