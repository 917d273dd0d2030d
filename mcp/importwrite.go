package mcp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"

	"modbay/config"
)

// ErrExists reports imported ids that config.yaml already has: nothing
// is overwritten without being asked.
type ErrExists struct{ IDs []string }

// Error implements error.
func (e *ErrExists) Error() string {
	return fmt.Sprintf("config.yaml already has mcp_servers %s: remove them first, or import the others with --skip-existing",
		strings.Join(e.IDs, ", "))
}

// MergeServers returns the config file text with servers added under
// mcp_servers, keeping the rest of the text (comments included) as it
// is: after a block-style "mcp_servers:" line, or as a new block at the
// end. Servers whose id the config already has are *ErrExists, or
// skipped (and listed) when skip is set. The result is checked by
// loading it; a file whose mcp_servers is not block style is refused.
func MergeServers(text []byte, have map[string]config.MCPServer, servers []Imported, skip bool) ([]byte, []string, error) {
	var add []Imported
	var exists []string
	for _, s := range servers {
		if _, dup := have[s.ID]; dup {
			exists = append(exists, s.ID)
			continue
		}
		add = append(add, s)
	}
	if len(exists) > 0 && !skip {
		return nil, nil, &ErrExists{IDs: exists}
	}
	if len(add) == 0 {
		return text, exists, nil
	}
	var block bytes.Buffer
	for _, s := range add {
		b, err := yaml.MarshalWithOptions(map[string]config.MCPServer{s.ID: s.Server}, yaml.Indent(2))
		if err != nil {
			return nil, nil, err
		}
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if l != "" {
				block.WriteString("  " + l)
			}
		}
	}
	lines := strings.SplitAfter(string(text), "\n")
	at := -1
	for i, l := range lines {
		t := strings.TrimRight(l, " \r\n")
		if t == "mcp_servers:" {
			at = i
			break
		}
		if strings.HasPrefix(t, "mcp_servers:") {
			return nil, nil, fmt.Errorf("config.yaml writes mcp_servers on one line (%q): make it a block (mcp_servers: on its own line) to import", t)
		}
	}
	var out string
	if at < 0 {
		out = string(text)
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += "mcp_servers:\n" + block.String()
	} else {
		out = strings.Join(lines[:at+1], "") + block.String() + strings.Join(lines[at+1:], "")
	}
	// What was written must read back as before plus the servers.
	dir, err := os.MkdirTemp("", "modbay-import-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(out), 0o600); err != nil {
		return nil, nil, err
	}
	c, err := config.Load(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("the merged config does not load (nothing written): %w", err)
	}
	if len(c.MCPServers) != len(have)+len(add) {
		return nil, nil, fmt.Errorf("the merged config holds %d servers, want %d (nothing written)", len(c.MCPServers), len(have)+len(add))
	}
	return []byte(out), exists, nil
}
