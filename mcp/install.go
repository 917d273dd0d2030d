package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// MergeClientEntry returns text (a client's JSON or JSONC configuration,
// possibly empty) with entry (a JSON object) set as member name of its
// top-level object key ("mcpServers", or "servers" for VS Code): the
// member replaced when present, added otherwise, the object made when
// absent. Everything else — other members, comments, layout — is kept
// byte for byte. A text that is not a JSON(C) object is an error.
func MergeClientEntry(text []byte, key, name string, entry json.RawMessage) ([]byte, error) {
	return MergeClientEntryAt(text, []string{key}, name, entry)
}

// MergeClientEntryAt is MergeClientEntry with the object that holds the
// entry found by following keys from the top (Claude Code's local scope:
// "projects", the project's absolute path, "mcpServers"), each object on
// the way made when absent; a member on the way that is not an object is
// an error.
func MergeClientEntryAt(text []byte, keys []string, name string, entry json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(text)) == 0 {
		text = []byte("{}\n")
	}
	var probe any
	if err := json.Unmarshal(stripJSONC(text), &probe); err != nil {
		return nil, fmt.Errorf("not a JSON configuration: %w", err)
	}
	if _, ok := probe.(map[string]any); !ok {
		return nil, errors.New("not a JSON configuration: the top level is not an object")
	}
	m := maskComments(text)
	open := skipSpace(m, 0)
	ind := func(depth int) string { return strings.Repeat("  ", depth) }
	depth := 1 // of open's members
	for i, k := range keys {
		obj, ok := member(m, open, k)
		if !ok {
			return insertMember(text, m, open, jsonQuote(k)+": "+nestedEntry(keys[i+1:], name, entry, depth), ind(depth)), nil
		}
		if m[obj.val] != '{' {
			return nil, fmt.Errorf("%q is not an object", k)
		}
		open, depth = obj.val, depth+1
	}
	if cur, ok := member(m, open, name); ok {
		out := append([]byte{}, text[:cur.val]...)
		out = append(out, indented(entry, ind(depth))...)
		return append(out, text[cur.end:]...), nil
	}
	return insertMember(text, m, open, jsonQuote(name)+": "+indented(entry, ind(depth)), ind(depth)), nil
}

// nestedEntry is the object, closing at nesting depth, that holds keys'
// objects one in another and, in the last, name: entry.
func nestedEntry(keys []string, name string, entry json.RawMessage, depth int) string {
	ind := func(d int) string { return strings.Repeat("  ", d) }
	if len(keys) == 0 {
		return "{\n" + ind(depth+1) + jsonQuote(name) + ": " + indented(entry, ind(depth+1)) + "\n" + ind(depth) + "}"
	}
	return "{\n" + ind(depth+1) + jsonQuote(keys[0]) + ": " + nestedEntry(keys[1:], name, entry, depth+1) + "\n" + ind(depth) + "}"
}

// span is one object member: where its value starts and ends.
type span struct{ val, end int }

// member finds key among the members of the object opening at m[open].
func member(m []byte, open int, key string) (span, bool) {
	i := skipSpace(m, open+1)
	for i < len(m) && m[i] != '}' {
		if m[i] == ',' {
			i = skipSpace(m, i+1)
			continue
		}
		kEnd := skipValue(m, i)
		var k string
		_ = json.Unmarshal(m[i:kEnd], &k)
		v := skipSpace(m, skipSpace(m, kEnd)+1) // past ':'
		vEnd := skipValue(m, v)
		if k == key {
			return span{v, vEnd}, true
		}
		i = skipSpace(m, vEnd)
	}
	return span{}, false
}

// insertMember adds "member" as the last member of the object opening at
// m[open], after a comma when it has members, at the given indent.
func insertMember(text, m []byte, open int, mem, indent string) []byte {
	end := skipValue(m, open) - 1 // the closing '}'
	j := end - 1
	for j > open && isSpace(m[j]) {
		j--
	}
	sep := ""
	if m[j] != '{' && m[j] != ',' {
		sep = ","
	}
	// The member goes after the last one, past a comment ending its line;
	// the comma right after its value.
	at := j + 1
	for at < end && (m[at] == ' ' || m[at] == '\t') {
		at++
	}
	if at >= end || m[at] != '\n' {
		at = j + 1 // something else follows on the line: insert right after the value
	}
	closeIndent := indent[:len(indent)-2]
	out := append([]byte{}, text[:j+1]...)
	out = append(out, sep...)
	out = append(out, text[j+1:at]...)
	out = append(out, "\n"+indent+mem+"\n"+closeIndent...)
	rest := text[at:]
	// The whitespace before the closing brace is replaced by the insert's own.
	k := 0
	for k < len(rest) && isSpace(rest[k]) && at+k < end {
		k++
	}
	if at+k == end {
		rest = rest[k:]
	}
	return append(out, rest...)
}

// maskComments is text with each comment's bytes replaced by spaces
// (newlines kept): offsets match text's, and the rest is JSON's.
func maskComments(text []byte) []byte {
	m := append([]byte{}, text...)
	inString, escaped := false, false
	for i := 0; i < len(m); i++ {
		c := m[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(m) && m[i+1] == '/':
			for i < len(m) && m[i] != '\n' {
				m[i] = ' '
				i++
			}
		case c == '/' && i+1 < len(m) && m[i+1] == '*':
			for i < len(m) && !(m[i] == '*' && i+1 < len(m) && m[i+1] == '/') {
				if m[i] != '\n' {
					m[i] = ' '
				}
				i++
			}
			if i+1 < len(m) {
				m[i], m[i+1] = ' ', ' '
				i++
			}
		}
	}
	return m
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(m []byte, i int) int {
	for i < len(m) && isSpace(m[i]) {
		i++
	}
	return i
}

// skipValue is the end of the JSON value starting at m[i] (m masked).
func skipValue(m []byte, i int) int {
	if i >= len(m) {
		return i
	}
	switch m[i] {
	case '"':
		for j := i + 1; j < len(m); j++ {
			if m[j] == '\\' {
				j++
			} else if m[j] == '"' {
				return j + 1
			}
		}
		return len(m)
	case '{', '[':
		depth := 0
		for j := i; j < len(m); j++ {
			switch m[j] {
			case '"':
				j = skipValue(m, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(m)
	}
	j := i
	for j < len(m) && !isSpace(m[j]) && m[j] != ',' && m[j] != '}' && m[j] != ']' {
		j++
	}
	return j
}

func jsonQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// indented is v as indented JSON whose inner lines start with prefix.
func indented(v json.RawMessage, prefix string) string {
	var b bytes.Buffer
	if json.Indent(&b, v, prefix, "  ") != nil {
		return string(v)
	}
	return strings.TrimSpace(b.String())
}

// ClientEntryAt is the member name of the object keys lead to in text (a
// client's JSON or JSONC configuration), as JSON with comments and
// trailing commas removed; false when text, an object on the way or the
// member is absent. A text that is not a JSON(C) object is an error.
func ClientEntryAt(text []byte, keys []string, name string) (json.RawMessage, bool, error) {
	if len(bytes.TrimSpace(text)) == 0 {
		return nil, false, nil
	}
	var probe any
	if err := json.Unmarshal(stripJSONC(text), &probe); err != nil {
		return nil, false, fmt.Errorf("not a JSON configuration: %w", err)
	}
	if _, ok := probe.(map[string]any); !ok {
		return nil, false, errors.New("not a JSON configuration: the top level is not an object")
	}
	m := maskComments(text)
	open := skipSpace(m, 0)
	path := append(append([]string{}, keys...), name)
	for i, k := range path {
		if m[open] != '{' {
			return nil, false, nil
		}
		v, ok := member(m, open, k)
		if !ok {
			return nil, false, nil
		}
		if i == len(path)-1 {
			return json.RawMessage(stripJSONC(m[v.val:v.end])), true, nil
		}
		open = v.val
	}
	return nil, false, nil
}
