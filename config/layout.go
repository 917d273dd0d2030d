package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"modbay/modproto"
)

// The home's layout (docs/protocol.md §13): module state lives only under
// <home>/state/<state key>/<root name>, where both names keep the id
// grammar; everything the host keeps for itself lives beside state/,
// never inside it, so no module id or root name can address it.
const (
	stateDirName    = "state"
	requestsDirName = "requests"
	inputsDirName   = "inputs"
	tmpDirName      = "tmp"
)

// StateDir is <home>/state/<key>/<root>, the directory backing a write
// root other than workspace (docs/protocol.md §4, §13). key is the module's
// state key (ValidStateKey) and root a root name (modproto.ValidRootName);
// either breaking its grammar is an error, so no path is ever built from a
// name that could climb out of <home>/state/<key>.
func (c *Config) StateDir(key, root string) (string, error) {
	if !ValidStateKey(key) {
		return "", fmt.Errorf("state key %q is not a module id or <id>@<16 hex> (docs/protocol.md §13)", key)
	}
	if !modproto.ValidRootName(root) {
		return "", fmt.Errorf("root %q breaks the root name grammar: %s", root, modproto.RootNameRule)
	}
	return filepath.Join(c.Home, stateDirName, key, root), nil
}

// StateBase is <home>/state, the only part of the home modules can write.
func (c *Config) StateBase() string { return filepath.Join(c.Home, stateDirName) }

// RequestsDir is <home>/requests, where saved request files live (mode
// 0700; docs/protocol.md §13).
func (c *Config) RequestsDir() string { return filepath.Join(c.Home, requestsDirName) }

// InputsDir is <home>/inputs, the cockpit's last inputs and presets.
func (c *Config) InputsDir() string { return filepath.Join(c.Home, inputsDirName) }

// JobsDir is <home>/jobs, the host's job state: the handle of a job whose
// job_id holds a secret, kept for polls only (docs/protocol.md §12).
func (c *Config) JobsDir() string { return filepath.Join(c.Home, "jobs") }

// TmpDir is <home>/tmp, where the cockpit writes the sanitized copies a
// pager or an editor opens (0600 each, removed when it exits).
func (c *Config) TmpDir() string { return filepath.Join(c.Home, tmpDirName) }

// stateKeyDigestHex is how many hex digits of the path digest a
// path-loaded module's state key carries (64 bits).
const stateKeyDigestHex = 16

// ValidStateKey reports whether key is a state key (docs/protocol.md §13): a
// module id (an installed module's directory name, an example's or an MCP
// server's config id), or <id>@<16 lowercase hex> for a module loaded by
// path. '@' is outside the id grammar, so the two never meet.
func ValidStateKey(key string) bool {
	id, sum, byPath := strings.Cut(key, "@")
	if !modproto.ValidModuleID(id) {
		return false
	}
	if !byPath {
		return true
	}
	if len(sum) != stateKeyDigestHex {
		return false
	}
	for i := 0; i < len(sum); i++ {
		if c := sum[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// PathStateKey is the state key of a module loaded by path: its id, '@',
// and the first 16 hex digits of the sha256 of its resolved executable
// path, so two paths claiming one id never share state.
func PathStateKey(id, resolvedExe string) string {
	return id + "@" + modproto.Digest([]byte(resolvedExe))[len("sha256:"):][:stateKeyDigestHex]
}

// legacyMoves are the host files earlier homes kept inside state/, where a
// module named "." could reach them, and where they live now.
var legacyMoves = []struct{ from, to string }{
	{filepath.Join(stateDirName, ".requests"), requestsDirName},
	{filepath.Join(stateDirName, ".modbay", "inputs"), inputsDirName},
}

// MigrateLayout moves a home's host files out of <home>/state into the
// layout of docs/protocol.md §13 (saved requests, inputs and presets), once:
// a source that is missing is nothing to do. Only plain directories and
// regular files move (a symlink a module planted stays behind, unread);
// a file already at the destination wins over the old one. The emptied
// old directories are removed.
func MigrateLayout(home string) error {
	var errs []error
	for _, m := range legacyMoves {
		if err := migrateDir(filepath.Join(home, m.from), filepath.Join(home, m.to)); err != nil {
			errs = append(errs, err)
		}
	}
	_ = os.Remove(filepath.Join(home, stateDirName, ".modbay"))
	return errors.Join(errs...)
}

// migrateDir moves the tree from into to (made 0700), file by file.
func migrateDir(from, to string) error {
	fi, err := os.Lstat(from)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil || !fi.IsDir() {
		return err
	}
	ents, err := os.ReadDir(from)
	if err != nil {
		return fmt.Errorf("migrating %s: %w", from, err)
	}
	if err := os.MkdirAll(to, 0o700); err != nil {
		return fmt.Errorf("migrating %s: %w", from, err)
	}
	for _, e := range ents {
		src, dst := filepath.Join(from, e.Name()), filepath.Join(to, e.Name())
		switch {
		case e.IsDir():
			if err := migrateDir(src, dst); err != nil {
				return err
			}
		case e.Type().IsRegular():
			if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
				if err := os.Rename(src, dst); err != nil {
					return fmt.Errorf("migrating %s: %w", src, err)
				}
				continue
			}
			_ = os.Remove(src)
		}
	}
	_ = os.Remove(from) // left when something unmovable stayed
	return nil
}

// ApprovedEffectsFile is <home>/approved-effects.json: the declared
// effects of each pre-approved capability as of its last approved run, so
// a module that changes them is asked again (docs/protocol.md §11).
func (c *Config) ApprovedEffectsFile() string { return filepath.Join(c.Home, "approved-effects.json") }

// ServeDir is <home>/serve, what `modbay mcp serve` keeps for itself: the
// tool pins, the HTTP bearer token, the cockpits' approval sockets
// (docs/gateway.md), mode 0700.
func (c *Config) ServeDir() string { return filepath.Join(c.Home, "serve") }
