package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Sources of a skill folder (Record.Source, Folder.Source).
const (
	// SourceProject is <project>/.agents/skills.
	SourceProject = "project"
	// SourceHome is ~/.agents/skills.
	SourceHome = "home"
	// SourceConfig is a folder named in config.yaml (skills.dirs).
	SourceConfig = "config"
	// SourceFlag is a folder named on the command line (--skills, or
	// `modbay skills list DIR`).
	SourceFlag = "flag"
)

// Folder is a place skills are looked for: a folder of skill folders, or
// a skill folder itself (one holding SKILL.md).
type Folder struct {
	Path   string `json:"path"`
	Source string `json:"source"`
}

// ProjectRoot is the git root of dir (the nearest folder at or above it
// holding .git, a folder or a file), else dir itself.
func ProjectRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// Folders lists where skills are looked for, in precedence order
// (docs/skills.md "Where skills are found"): <project>/.agents/skills for the project of
// cwd, <userHome>/.agents/skills, then configDirs, then flagDirs. Relative
// paths are made absolute against cwd; empty cwd or userHome skip theirs;
// a path listed twice is kept once, at its first place.
func Folders(cwd, userHome string, configDirs, flagDirs []string) []Folder {
	var out []Folder
	seen := map[string]bool{}
	add := func(p, src string) {
		if p == "" {
			return
		}
		if !filepath.IsAbs(p) && cwd != "" {
			p = filepath.Join(cwd, p)
		}
		p = filepath.Clean(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, Folder{Path: p, Source: src})
		}
	}
	if cwd != "" {
		add(filepath.Join(ProjectRoot(cwd), ".agents", "skills"), SourceProject)
	}
	if userHome != "" {
		add(filepath.Join(userHome, ".agents", "skills"), SourceHome)
	}
	for _, d := range configDirs {
		add(d, SourceConfig)
	}
	for _, d := range flagDirs {
		add(d, SourceFlag)
	}
	return out
}

// Catalog is the skills of some folders, indexed, with names made unique.
type Catalog struct {
	// Skills are in folder order, then by folder name.
	Skills []Record `json:"skills"`
	// Missing lists folders that do not exist (not an error: most people
	// have no ~/.agents/skills).
	Missing []string `json:"missing,omitempty"`
}

// Scan indexes every skill of folders: a folder holding SKILL.md is one
// skill; otherwise each subfolder holding SKILL.md is (hidden ones
// skipped). writableRoots are the modules' writable roots (the
// workspace, the state folders): a skill inside one is marked
// ModuleWritable (modules may write it; not that one did). Names seen twice are disambiguated (Disambiguate).
func Scan(folders []Folder, writableRoots []string) Catalog {
	var c Catalog
	type job struct{ dir, source string }
	var jobs []job
	for _, f := range folders {
		dirs, ok := skillDirs(f.Path)
		if !ok {
			c.Missing = append(c.Missing, f.Path)
			continue
		}
		for _, d := range dirs {
			jobs = append(jobs, job{d, f.Source})
		}
	}
	c.Skills = make([]Record, len(jobs))
	// Indexing waits on the file system more than on the CPU: a few
	// workers keep several folders in flight; each writes its own slot,
	// so the order stays the folders'.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(scanWorkers, len(jobs)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(jobs); i = int(next.Add(1) - 1) {
				r, _ := Index(jobs[i].dir)
				r.Source = jobs[i].source
				r.ModuleWritable = within(r.Key.Location, writableRoots)
				c.Skills[i] = r
			}
		})
	}
	wg.Wait()
	Disambiguate(c.Skills)
	return c
}

// scanWorkers is how many skill folders Scan indexes at once.
const scanWorkers = 8

// skillDirs lists the skill folders of dir; ok is false when dir is not a
// readable folder.
func skillDirs(dir string) (dirs []string, ok bool) {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil, false
	}
	if isFile(filepath.Join(dir, FileName)) {
		return []string{dir}, true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(p); err == nil && fi.IsDir() && isFile(filepath.Join(p, FileName)) {
			dirs = append(dirs, p)
		}
	}
	return dirs, true
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// within reports whether p lies at or below one of roots.
func within(p string, roots []string) bool {
	for _, r := range roots {
		if r == "" {
			continue
		}
		rel, err := filepath.Rel(filepath.Clean(r), p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// HashSuffix is the short suffix that tells apart two skills of one
// name: "#" and the first 8 hex digits of sha256(location).
func HashSuffix(location string) string {
	sum := sha256.Sum256([]byte(location))
	return "#" + hex.EncodeToString(sum[:4])
}

// Disambiguate makes the listed names (Key.Name) unique: the first skill
// of a name keeps it, every later one gets HashSuffix(location) appended
// ("my-skill#1a2b3c4d"). Name stays the skill's own.
func Disambiguate(rs []Record) {
	seen := map[string]bool{}
	for i := range rs {
		n := rs[i].Name
		if seen[n] {
			rs[i].Key.Name = n + HashSuffix(rs[i].Key.Location)
		} else {
			rs[i].Key.Name = n
		}
		seen[n] = true
	}
}

// Find returns the skill listed as name (its Key.Name; a bare name finds
// the first of that name), or false.
func (c *Catalog) Find(name string) (Record, bool) {
	if i := slices.IndexFunc(c.Skills, func(r Record) bool { return r.Key.Name == name }); i >= 0 {
		return c.Skills[i], true
	}
	return Record{}, false
}
