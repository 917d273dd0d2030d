package skills

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fm builds a SKILL.md from frontmatter lines and a body.
func fm(lines ...string) []byte {
	return []byte("---\n" + strings.Join(lines, "\n") + "\n---\nBody\n")
}

// TestParseRules pins one case per rule of docs/skills.md "SKILL.md" and
// its limits: the warning it gives (by a fragment) and whether it is strict,
// or that the file is unusable.
func TestParseRules(t *testing.T) {
	const desc = "description: Does a thing."
	long := func(n int) string { return strings.Repeat("a", n) }
	cases := []struct {
		name     string
		data     []byte
		dir      string
		unusable string // fragment of the error, "" when usable
		warn     string // fragment of the single problem, "" for none
		strict   bool
	}{
		{name: "clean", data: fm("name: tidy", desc), dir: "tidy"},
		{name: "closing dots", data: []byte("---\nname: tidy\n" + desc + "\n...\nBody\n"), dir: "tidy"},
		{name: "name differs from folder", data: fm("name: tidy", desc), dir: "other", warn: `differs from its folder's name "other"`, strict: true},
		{name: "name too long", data: fm("name: "+long(65), desc), warn: "65 characters, more than 64", strict: true},
		{name: "name 64 ok", data: fm("name: "+long(64), desc)},
		{name: "name uppercase", data: fm("name: Tidy", desc), warn: "lowercase letters", strict: true},
		{name: "name leading hyphen", data: fm("name: -tidy", desc), warn: "lowercase letters", strict: true},
		{name: "name double hyphen", data: fm("name: ti--dy", desc), warn: "lowercase letters", strict: true},
		{name: "name missing", data: fm(desc), dir: "folder", warn: "missing (required)", strict: true},
		{name: "description missing", data: fm("name: tidy"), unusable: "description is missing"},
		{name: "description empty", data: fm("name: tidy", `description: ""`), unusable: "description is missing"},
		{name: "description too long", data: fm("name: tidy", "description: "+long(1025)), warn: "1025 characters, more than 1024", strict: true},
		{name: "description 1024 ok", data: fm("name: tidy", "description: "+long(1024))},
		{name: "description as list", data: fm("name: tidy", "description: [a, b]"), warn: "YAML reads it as a list", strict: true},
		{name: "description as number", data: fm("name: tidy", "description: 42"), warn: "YAML reads it as uint64"},
		{name: "compatibility too long", data: fm("name: tidy", desc, "compatibility: "+long(501)), warn: "501 characters, more than 500", strict: true},
		{name: "metadata not strings", data: fm("name: tidy", desc, "metadata:", "  version: 1.5"), warn: "metadata.version: is not a string", strict: true},
		{name: "metadata not a map", data: fm("name: tidy", desc, "metadata: [a]"), warn: "must map strings to strings", strict: true},
		{name: "allowed-tools list", data: fm("name: tidy", desc, "allowed-tools: [Read, Grep]"), warn: "a YAML list"},
		{name: "insert bad", data: fm("name: tidy", desc, "insert: system"), warn: `"system" is neither`, strict: true},
		{name: "argument bad name", data: fm("name: tidy", desc, "arguments: [1st]"), warn: "breaks the rule [A-Za-z_]", strict: true},
		{name: "argument twice", data: fm("name: tidy", desc, "arguments: [a, a]"), warn: "declared twice", strict: true},
		{name: "argument unknown key", data: fm("name: tidy", desc, "arguments:", "  - name: a", "    required: true"), warn: `unknown key "required"`, strict: true},
		{name: "too many arguments", data: fm("name: tidy", desc, "arguments: ["+names(65)+"]"), warn: "65 declared, more than 64", strict: true},
		{name: "too many tags", data: fm("name: tidy", desc, "tags: ["+names(65)+"]"), warn: "65 declared, more than 64", strict: true},
		{name: "tag too long", data: fm("name: tidy", desc, "tags: ["+long(129)+"]"), warn: "129 bytes, more than 128", strict: true},
		{name: "unknown key", data: fm("name: tidy", desc, "type: technique"), warn: "type: unknown key", strict: true},
		{name: "bom", data: append([]byte("\uFEFF"), fm("name: tidy", desc)...), warn: "byte-order mark was stripped"},
		{name: "no frontmatter", data: []byte("# Title\n"), unusable: "no frontmatter"},
		{name: "unclosed", data: []byte("---\nname: tidy\n"), unusable: "not closed"},
		{name: "bad yaml", data: fm("name: [tidy", desc), unusable: "not valid YAML"},
		{name: "not a mapping", data: []byte("---\n- a\n---\n"), unusable: "not a YAML mapping"},
		{name: "nul", data: fm("name: tidy", desc+"\x00"), unusable: "NUL"},
		{name: "not utf8", data: fm("name: tidy", desc+"\xff"), unusable: "UTF-8"},
		{name: "too big", data: append(fm("name: tidy", desc), make([]byte, MaxFileBytes)...), unusable: "more than the 2097152"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(c.data, c.dir)
			if c.unusable != "" {
				if err == nil || !errors.Is(err, ErrUnusable) || !strings.Contains(err.Error(), c.unusable) {
					t.Fatalf("err = %v, want unusable with %q", err, c.unusable)
				}
				return
			}
			if err != nil {
				t.Fatalf("unusable: %v", err)
			}
			if c.warn == "" {
				if len(p.Problems) != 0 {
					t.Fatalf("problems %v, want none", p.Problems)
				}
				return
			}
			if len(p.Problems) != 1 || !strings.Contains(p.Problems[0].String(), c.warn) || p.Problems[0].Strict != c.strict {
				t.Fatalf("problems %+v, want one (strict %v) with %q", p.Problems, c.strict, c.warn)
			}
		})
	}
}

func names(n int) string {
	var s []string
	for i := range n {
		s = append(s, fmt.Sprintf("a%d", i))
	}
	return strings.Join(s, ", ")
}

// TestParseFields reads every interpreted key of the fixture, and CRLF
// becomes LF.
func TestParseFields(t *testing.T) {
	p, err := Parse([]byte("---\r\nname: tidy\r\ndescription: |\r\n  Two\r\n  lines.\r\ndisplay-name: Tidy up\r\ninsert: user-message\r\nallowed-tools: Read  Grep\r\nmetadata: {author: me}\r\ntags: [x, y]\r\narguments:\r\n  - a\r\n  - {name: b, description: B, default: 2}\r\n---\r\nHello\r\n"), "tidy")
	if err != nil {
		t.Fatal(err)
	}
	if p.Description != "Two\nlines." || p.DisplayName != "Tidy up" || p.Insert != InsertUserMessage || p.Body != "Hello\n" {
		t.Errorf("fields: %+v", p)
	}
	if fmt.Sprint(p.AllowedTools) != "[Read Grep]" || p.Metadata["author"] != "me" || fmt.Sprint(p.Tags) != "[x y]" {
		t.Errorf("lists: %+v", p)
	}
	if fmt.Sprint(p.Arguments) != "[{a  } {b B 2}]" {
		t.Errorf("arguments: %+v", p.Arguments)
	}
	if p.Raw["display-name"] != "Tidy up" || len(p.Problems) != 0 {
		t.Errorf("raw %v problems %v", p.Raw, p.Problems)
	}
}
