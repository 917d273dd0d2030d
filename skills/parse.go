package skills

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
)

// ErrUnusable is wrapped by every error that makes a SKILL.md unusable
// (docs/skills.md "Strict in checking, lenient in showing"): too big, not UTF-8, a NUL byte, no
// frontmatter, YAML that does not parse or is not a mapping, no
// description.
var ErrUnusable = errors.New("unusable SKILL.md")

// Parsed is a SKILL.md read by Parse: the frontmatter fields modbay
// interprets, every key as parsed (Raw), the body and what was wrong.
type Parsed struct {
	// Name is the frontmatter name, or the directory's name when the
	// frontmatter has none (a strict problem).
	Name string
	// Description is the frontmatter description, never empty.
	Description string
	// DisplayName is "display-name", when given.
	DisplayName string
	// Insert is InsertInstructions or InsertUserMessage.
	Insert string
	// License and Compatibility are as given.
	License, Compatibility string
	// AllowedTools is "allowed-tools" split on spaces (a YAML list is
	// accepted too).
	AllowedTools []string
	// Metadata is "metadata", string to string.
	Metadata map[string]string
	// Arguments are the declared arguments, at most MaxArguments.
	Arguments []Argument
	// Tags are the declared tags, at most MaxTags.
	Tags []string
	// Raw is the whole frontmatter as parsed, JSON-safe (map keys are
	// strings).
	Raw map[string]any
	// Body is the Markdown after the frontmatter, LF line ends.
	Body string
	// Problems are the broken or bent rules, in the file's order of keys
	// (sorted), then the file-level ones.
	Problems []Problem
}

// Warnings returns every problem as one line each.
func (p *Parsed) Warnings() []string {
	var w []string
	for _, pr := range p.Problems {
		w = append(w, pr.String())
	}
	return w
}

// knownKeys are the frontmatter keys modbay interprets; every other key is
// kept in Raw and reported as unknown (docs/skills.md "Keys modbay interprets").
var knownKeys = map[string]bool{
	"name": true, "description": true, "license": true, "compatibility": true,
	"metadata": true, "allowed-tools": true, "insert": true, "arguments": true,
	"tags": true, "display-name": true,
}

var (
	// namePattern is a skill name: lowercase letters, digits and single
	// hyphens, neither first nor last.
	namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	// argNamePattern is an argument name.
	argNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// Parse reads a SKILL.md's bytes. dirName is the name of the folder
// holding it ("" when unknown: the name is then not compared). It returns
// an error wrapping ErrUnusable when the skill cannot be used; otherwise
// every broken rule is a Problem of the result.
func Parse(data []byte, dirName string) (*Parsed, error) {
	p := &Parsed{Insert: InsertInstructions}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%w: %d bytes, more than the %d allowed", ErrUnusable, len(data), MaxFileBytes)
	}
	if b, ok := bytes.CutPrefix(data, []byte("\uFEFF")); ok {
		data = b
		p.note("", "a byte-order mark was stripped")
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%w: not valid UTF-8", ErrUnusable)
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, fmt.Errorf("%w: holds a NUL byte", ErrUnusable)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	front, body, err := splitFrontmatter(text)
	if err != nil {
		return nil, err
	}
	p.Body = body
	raw, err := decodeFrontmatter(front)
	if err != nil {
		return nil, err
	}
	p.Raw = raw
	if err := p.fields(raw, dirName); err != nil {
		return nil, err
	}
	return p, nil
}

// splitFrontmatter cuts text (LF line ends) into the frontmatter between
// a first line "---" and the next line "---" or "...", and the body after.
func splitFrontmatter(text string) (front, body string, err error) {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", "", fmt.Errorf("%w: no frontmatter: the file must start with a line \"---\"", ErrUnusable)
	}
	for off := 0; off <= len(rest); {
		line, _, found := strings.Cut(rest[off:], "\n")
		if l := strings.TrimRight(line, " \t"); l == "---" || l == "..." {
			end := off + len(line)
			if found {
				end++
			}
			return rest[:off], rest[end:], nil
		}
		if !found {
			break
		}
		off += len(line) + 1
	}
	return "", "", fmt.Errorf("%w: the frontmatter is not closed by a line \"---\" or \"...\"", ErrUnusable)
}

// decodeFrontmatter parses the YAML between the fences into a JSON-safe
// mapping. The YAML library panics on some malformed inputs; a panic is
// an unusable file, not a crash.
func decodeFrontmatter(front string) (raw map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			raw, err = nil, fmt.Errorf("%w: the YAML parser failed on the frontmatter: %v", ErrUnusable, r)
		}
	}()
	var v any
	if err := yaml.Unmarshal([]byte(front), &v); err != nil {
		return nil, fmt.Errorf("%w: the frontmatter is not valid YAML: %s", ErrUnusable, oneLine(err.Error()))
	}
	if v == nil {
		return map[string]any{}, nil
	}
	m, ok := jsonSafe(v).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: the frontmatter is not a YAML mapping", ErrUnusable)
	}
	return m, nil
}

// jsonSafe turns YAML maps with non-string keys into map[string]any
// (keys printed with %v), recursively.
func jsonSafe(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = jsonSafe(e)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = jsonSafe(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = jsonSafe(e)
		}
		return t
	}
	return v
}

// oneLine folds a multi-line error (the YAML library quotes the source)
// into its first line.
func oneLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}

// fields reads the interpreted keys of raw into p.
func (p *Parsed) fields(raw map[string]any, dirName string) error {
	desc, ok := p.text(raw, "description")
	if !ok || strings.TrimSpace(desc) == "" {
		return fmt.Errorf("%w: description is missing or empty (required: what the skill does and when to use it)", ErrUnusable)
	}
	p.Description = strings.TrimSpace(desc)
	if n := utf8.RuneCountInString(p.Description); n > MaxDescriptionLen {
		p.strict("description", fmt.Sprintf("%d characters, more than %d", n, MaxDescriptionLen))
	}
	p.name(raw, dirName)
	if dn, ok := p.text(raw, "display-name"); ok {
		p.DisplayName = strings.TrimSpace(dn)
	}
	if l, ok := p.text(raw, "license"); ok {
		p.License = l
	}
	if c, ok := p.text(raw, "compatibility"); ok {
		p.Compatibility = c
		if n := utf8.RuneCountInString(c); n > MaxCompatibilityLen {
			p.strict("compatibility", fmt.Sprintf("%d characters, more than %d", n, MaxCompatibilityLen))
		}
	}
	p.insert(raw)
	p.metadata(raw)
	p.allowedTools(raw)
	p.arguments(raw)
	p.tags(raw)
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if !knownKeys[k] {
			p.strict(k, "unknown key: kept as raw frontmatter, not interpreted")
		}
	}
	return nil
}

// name checks the name rules; a missing name falls back to dirName.
func (p *Parsed) name(raw map[string]any, dirName string) {
	n, ok := p.text(raw, "name")
	n = strings.TrimSpace(n)
	if !ok || n == "" {
		p.Name = dirName
		p.strict("name", "missing (required); the folder's name is used")
		return
	}
	p.Name = n
	if c := utf8.RuneCountInString(n); c > MaxNameLen {
		p.strict("name", fmt.Sprintf("%d characters, more than %d", c, MaxNameLen))
	}
	if !namePattern.MatchString(n) {
		p.strict("name", fmt.Sprintf("%q breaks the rule: lowercase letters, digits and single hyphens, no hyphen first or last", n))
	}
	if dirName != "" && n != dirName {
		p.strict("name", fmt.Sprintf("%q differs from its folder's name %q", n, dirName))
	}
}

// insert reads "insert": instructions (default) or user-message.
func (p *Parsed) insert(raw map[string]any) {
	v, ok := p.text(raw, "insert")
	if !ok || v == "" {
		return
	}
	switch v {
	case InsertInstructions, InsertUserMessage:
		p.Insert = v
	default:
		p.strict("insert", fmt.Sprintf("%q is neither %q nor %q; %q is used", v, InsertInstructions, InsertUserMessage, InsertInstructions))
	}
}

// metadata reads "metadata" as string to string; other values are
// printed as strings with a problem each.
func (p *Parsed) metadata(raw map[string]any) {
	v, ok := raw["metadata"]
	if !ok || v == nil {
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		p.strict("metadata", "must map strings to strings; ignored")
		return
	}
	p.Metadata = make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s, isStr := m[k].(string)
		if !isStr {
			s = scalarText(m[k])
			p.strict("metadata."+k, "is not a string; read as "+fmt.Sprintf("%q", s))
		}
		p.Metadata[k] = s
	}
}

// allowedTools reads "allowed-tools": a space-separated string, or a YAML
// list (accepted with a note).
func (p *Parsed) allowedTools(raw map[string]any) {
	switch v := raw["allowed-tools"].(type) {
	case nil:
	case string:
		p.AllowedTools = strings.Fields(v)
	case []any:
		for _, e := range v {
			p.AllowedTools = append(p.AllowedTools, scalarText(e))
		}
		p.note("allowed-tools", "a YAML list where the rules say a space-separated string; accepted")
	default:
		p.strict("allowed-tools", "must be a space-separated string; ignored")
	}
}

// arguments reads "arguments": a list of bare names or {name,
// description, default}.
func (p *Parsed) arguments(raw map[string]any) {
	v, ok := raw["arguments"]
	if !ok || v == nil {
		return
	}
	list, ok := v.([]any)
	if !ok {
		p.strict("arguments", "must be a list; ignored")
		return
	}
	seen := map[string]bool{}
	for i, e := range list {
		field := fmt.Sprintf("arguments[%d]", i)
		if len(p.Arguments) == MaxArguments {
			p.strict("arguments", fmt.Sprintf("%d declared, more than %d; the rest are ignored", len(list), MaxArguments))
			break
		}
		var a Argument
		switch t := e.(type) {
		case string:
			a.Name = t
		case map[string]any:
			a.Name, _ = t["name"].(string)
			if d, ok := t["description"]; ok && d != nil {
				a.Description = scalarText(d)
			}
			if d, ok := t["default"]; ok && d != nil {
				a.Default = scalarText(d)
			}
			for _, k := range slices.Sorted(maps.Keys(t)) {
				if k != "name" && k != "description" && k != "default" {
					p.strict(field, fmt.Sprintf("unknown key %q ignored", k))
				}
			}
		default:
			p.strict(field, "must be a name or {name, description, default}; ignored")
			continue
		}
		switch {
		case !argNamePattern.MatchString(a.Name):
			p.strict(field, fmt.Sprintf("name %q breaks the rule [A-Za-z_][A-Za-z0-9_]*; ignored", a.Name))
		case seen[a.Name]:
			p.strict(field, fmt.Sprintf("%q is declared twice; the first is kept", a.Name))
		default:
			seen[a.Name] = true
			p.Arguments = append(p.Arguments, a)
		}
	}
}

// tags reads "tags": a list of strings, each at most MaxTagBytes.
func (p *Parsed) tags(raw map[string]any) {
	v, ok := raw["tags"]
	if !ok || v == nil {
		return
	}
	list, ok := v.([]any)
	if !ok {
		p.strict("tags", "must be a list of strings; ignored")
		return
	}
	for i, e := range list {
		if len(p.Tags) == MaxTags {
			p.strict("tags", fmt.Sprintf("%d declared, more than %d; the rest are ignored", len(list), MaxTags))
			break
		}
		s := scalarText(e)
		if len(s) > MaxTagBytes {
			p.strict(fmt.Sprintf("tags[%d]", i), fmt.Sprintf("%d bytes, more than %d; ignored", len(s), MaxTagBytes))
			continue
		}
		p.Tags = append(p.Tags, s)
	}
}

// text reads key as a string. A number or boolean is printed; a list of
// scalars (what YAML makes of some unquoted text) is joined with spaces;
// both with a note. ok is false when the key is absent or not text.
func (p *Parsed) text(raw map[string]any, key string) (string, bool) {
	v, present := raw[key]
	if !present || v == nil {
		return "", false
	}
	switch t := v.(type) {
	case string:
		return t, true
	case []any:
		parts := make([]string, 0, len(t))
		for _, e := range t {
			if _, nested := e.([]any); nested {
				p.strict(key, "must be a string; ignored")
				return "", false
			}
			if _, nested := e.(map[string]any); nested {
				p.strict(key, "must be a string; ignored")
				return "", false
			}
			parts = append(parts, scalarText(e))
		}
		s := strings.Join(parts, " ")
		p.strict(key, fmt.Sprintf("YAML reads it as a list; read as %q (quote the value)", s))
		return s, true
	case map[string]any:
		p.strict(key, "must be a string, not a mapping; ignored")
		return "", false
	default:
		s := scalarText(t)
		p.note(key, fmt.Sprintf("YAML reads it as %T; read as %q", t, s))
		return s, true
	}
}

// scalarText prints a YAML value as text.
func scalarText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// strict records a broken rule.
func (p *Parsed) strict(field, msg string) {
	p.Problems = append(p.Problems, Problem{Field: field, Message: msg, Strict: true})
}

// note records a rule bent and accepted.
func (p *Parsed) note(field, msg string) {
	p.Problems = append(p.Problems, Problem{Field: field, Message: msg})
}
