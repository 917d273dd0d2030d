package mcp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	"modbay/config"
)

// MergeServers returns the config file text with servers added under
// mcp_servers, keeping the rest of the text (comments included) as it
// is: after a block-style "mcp_servers:" line, or as a new block at the
// end. A server whose id the config already has is never overwritten
// unless replace (nil: never) says so for that id: then its entry is cut
// from the block and the imported one added; otherwise it is left out
// and listed in skipped. The result is checked by loading it; a file
// whose mcp_servers is not block style is refused, as is an entry to
// replace that is not found as written ("  id:" in the block).
func MergeServers(text []byte, have map[string]config.MCPServer, servers []Imported, replace func(id string) bool) (out []byte, skipped, replaced []string, err error) {
	var add []Imported
	for _, s := range servers {
		if _, dup := have[s.ID]; dup {
			if replace == nil || !replace(s.ID) {
				skipped = append(skipped, s.ID)
				continue
			}
			replaced = append(replaced, s.ID)
		}
		add = append(add, s)
	}
	if len(add) == 0 {
		return text, skipped, nil, nil
	}
	var block bytes.Buffer
	for _, s := range add {
		b, err := yaml.MarshalWithOptions(map[string]config.MCPServer{s.ID: s.Server}, yaml.Indent(2))
		if err != nil {
			return nil, nil, nil, err
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
			return nil, nil, nil, fmt.Errorf("config.yaml writes mcp_servers on one line (%q): make it a block (mcp_servers: on its own line) to import", t)
		}
	}
	for _, id := range replaced {
		if lines, err = cutEntry(lines, at, id); err != nil {
			return nil, nil, nil, err
		}
	}
	var merged string
	if at < 0 {
		merged = string(text)
		if merged != "" && !strings.HasSuffix(merged, "\n") {
			merged += "\n"
		}
		merged += "mcp_servers:\n" + block.String()
	} else {
		merged = strings.Join(lines[:at+1], "") + block.String() + strings.Join(lines[at+1:], "")
	}
	// What was written must read back as before plus the servers.
	dir, err := os.MkdirTemp("", "modbay-import-")
	if err != nil {
		return nil, nil, nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(merged), 0o600); err != nil {
		return nil, nil, nil, err
	}
	c, err := config.Load(dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the merged config does not load (nothing written): %w", err)
	}
	if want := len(have) + len(add) - len(replaced); len(c.MCPServers) != want {
		return nil, nil, nil, fmt.Errorf("the merged config holds %d servers, want %d (nothing written)", len(c.MCPServers), want)
	}
	for _, s := range add {
		if !sameServer(c.MCPServers[s.ID], s.Server) {
			return nil, nil, nil, fmt.Errorf("mcp_servers.%s does not read back as imported (nothing written)", s.ID)
		}
	}
	return []byte(merged), skipped, replaced, nil
}

// sameServer reports whether a and b write the same YAML (empty and
// absent maps alike).
func sameServer(a, b config.MCPServer) bool {
	ya, err1 := yaml.Marshal(a)
	yb, err2 := yaml.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ya, yb)
}

// indentOf is the count of leading spaces of l.
func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// blank reports whether l is empty or a comment.
func blank(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || strings.HasPrefix(t, "#")
}

// cutEntry removes entry id from the mcp_servers block starting at line
// at: its "id:" line at the block's indentation and every line below it
// indented deeper.
func cutEntry(lines []string, at int, id string) ([]string, error) {
	child := -1
	for i := at + 1; i < len(lines); i++ {
		if blank(lines[i]) {
			continue
		}
		if ind := indentOf(lines[i]); ind == 0 {
			break
		} else if child < 0 {
			child = ind
		}
		if indentOf(lines[i]) != child {
			continue
		}
		key := strings.TrimRight(strings.TrimSpace(lines[i]), " \r\n")
		if key != id+":" && key != `"`+id+`":` && key != "'"+id+"':" {
			continue
		}
		end := i + 1
		for end < len(lines) && (blank(lines[end]) || indentOf(lines[end]) > child) {
			end++
		}
		// Trailing blank lines and comments stay with what follows.
		for end > i+1 && blank(lines[end-1]) {
			end--
		}
		return append(slices.Clone(lines[:i]), lines[end:]...), nil
	}
	return nil, fmt.Errorf("mcp_servers.%s: not found as \"%s:\" in config.yaml's mcp_servers block; replace it by hand", id, id)
}
