package skills

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// RenderResult is a body rendered with arguments (docs/skills.md
// "Rendering with arguments").
type RenderResult struct {
	// Text is the body with every declared argument's placeholders
	// replaced.
	Text string `json:"text"`
	// AppliedArguments is the value each declared argument took: the one
	// given, else its default, else "".
	AppliedArguments map[string]string `json:"appliedArguments,omitempty"`
	// UnknownPlaceholders are placeholders for undeclared names, as
	// written ("$x", "{{ y }}"), in order of first appearance, each once;
	// they stay in Text as they are.
	UnknownPlaceholders []string `json:"unknownPlaceholders,omitempty"`
	// Warnings name values given for arguments the skill does not declare
	// (ignored).
	Warnings []string `json:"warnings,omitempty"`
}

// Render replaces the placeholders of body for the declared arguments
// args, with values (docs/skills.md "Rendering with arguments"):
//
//   - $name, {{name}} and {{ name }} (spaces or tabs inside the braces)
//     become the argument's value: values[name], else its default, else "";
//     name is the longest run of [A-Za-z0-9_] after "$", so $names is not
//     $name;
//   - \$name stays as the literal text $name (the backslash goes);
//   - a placeholder for an undeclared name stays as written and is listed;
//     $ARGUMENTS is not special, and $1 is not a placeholder;
//   - one pass: a value's own "$x" is never replaced again, and nothing is
//     executed.
func Render(body string, args []Argument, values map[string]string) RenderResult {
	res := RenderResult{AppliedArguments: map[string]string{}}
	declared := map[string]bool{}
	for _, a := range args {
		declared[a.Name] = true
		v, ok := values[a.Name]
		if !ok {
			v = a.Default
		}
		res.AppliedArguments[a.Name] = v
	}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if !declared[k] {
			res.Warnings = append(res.Warnings, fmt.Sprintf("argument %q is not declared by the skill; ignored", k))
		}
	}
	if len(res.AppliedArguments) == 0 {
		res.AppliedArguments = nil
	}
	unknown := map[string]bool{}
	addUnknown := func(s string) {
		if !unknown[s] {
			unknown[s] = true
			res.UnknownPlaceholders = append(res.UnknownPlaceholders, s)
		}
	}
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body) && body[i+1] == '$' && identLen(body[i+2:]) > 0:
			n := identLen(body[i+2:])
			b.WriteString(body[i+1 : i+2+n])
			i += 2 + n
		case c == '$' && identLen(body[i+1:]) > 0:
			n := identLen(body[i+1:])
			name := body[i+1 : i+1+n]
			if declared[name] {
				b.WriteString(res.AppliedArguments[name])
			} else {
				b.WriteString(body[i : i+1+n])
				addUnknown(body[i : i+1+n])
			}
			i += 1 + n
		case c == '{' && strings.HasPrefix(body[i:], "{{"):
			name, n := braced(body[i:])
			if n == 0 {
				b.WriteString("{{")
				i += 2
				continue
			}
			if declared[name] {
				b.WriteString(res.AppliedArguments[name])
			} else {
				b.WriteString(body[i : i+n])
				addUnknown(body[i : i+n])
			}
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	res.Text = b.String()
	return res
}

// identLen is the length of the argument name at the start of s (the
// rule [A-Za-z_][A-Za-z0-9_]*), 0 when s does not start with one.
func identLen(s string) int {
	if s == "" || !(s[0] == '_' || isLetter(s[0])) {
		return 0
	}
	n := 1
	for n < len(s) && (s[n] == '_' || isLetter(s[n]) || (s[n] >= '0' && s[n] <= '9')) {
		n++
	}
	return n
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// braced reads "{{ name }}" at the start of s: the name and the length of
// the whole placeholder, or n == 0 when s does not start with one.
func braced(s string) (name string, n int) {
	i := 2
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	l := identLen(s[i:])
	if l == 0 {
		return "", 0
	}
	name = s[i : i+l]
	i += l
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if !strings.HasPrefix(s[i:], "}}") {
		return "", 0
	}
	return name, i + 2
}
