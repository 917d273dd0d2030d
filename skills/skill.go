package skills

import "modbay/modproto"

// Limits of SKILL.md and of a skill folder (docs/skills.md "SKILL.md").
const (
	// MaxFileBytes is the largest SKILL.md (or a module's skill or overlay
	// file) read: 2 MiB. A bigger file is unusable; nothing beyond it is
	// read.
	MaxFileBytes = modproto.MaxBundleFileBytes
	// MaxNameLen is the longest name the rules allow, in characters.
	MaxNameLen = 64
	// MaxDescriptionLen is the longest description, in characters.
	MaxDescriptionLen = 1024
	// MaxCompatibilityLen is the longest compatibility note, in characters.
	MaxCompatibilityLen = 500
	// MaxArguments is how many arguments a skill may declare; the rest
	// are dropped with a warning.
	MaxArguments = 64
	// MaxTags is how many tags a skill may declare; the rest are dropped.
	MaxTags = 64
	// MaxTagBytes is the longest tag, in bytes.
	MaxTagBytes = 128
	// MaxResourceLocations is how many resource locations a Record lists;
	// ResourceInfo.TotalCount still counts them all.
	MaxResourceLocations = 1024
	// FileName is the skill file inside a skill folder.
	FileName = "SKILL.md"
)

// Insert modes: how a runtime inserts a skill's text (frontmatter
// "insert"; empty means InsertInstructions).
const (
	// InsertInstructions adds the text to the agent's instructions.
	InsertInstructions = "instructions"
	// InsertUserMessage adds the text as a user message.
	InsertUserMessage = "user-message"
)

// Argument is one declared argument of a skill (frontmatter "arguments":
// a bare name or {name, description, default}).
type Argument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Default     string `json:"default,omitempty"`
}

// ResourceInfo lists a skill folder's resources: its regular files other
// than SKILL.md, slash-relative, sorted, at most MaxResourceLocations.
type ResourceInfo struct {
	// HasResources is true when the folder holds at least one resource.
	HasResources bool `json:"hasResources"`
	// TotalCount counts every resource, even when Locations is cut.
	TotalCount int `json:"totalCount"`
	// Locations are the first MaxResourceLocations resources.
	Locations []string `json:"locations,omitempty"`
	// MoreLocations is true when Locations was cut.
	MoreLocations bool `json:"moreLocations"`
}

// Problem is one broken rule found in a SKILL.md. Strict problems break
// the rules (a validator fails on them; a browser shows the skill with a
// warning); the others are notes on what was accepted leniently (a BOM
// stripped, a list read as a string).
type Problem struct {
	// Field is the frontmatter key concerned ("" for the file as a whole).
	Field string `json:"field,omitempty"`
	// Message says what is wrong and the rule, in one line.
	Message string `json:"message"`
	// Strict is true when the rule is broken, not just bent.
	Strict bool `json:"strict"`
}

// String is the problem as one warning line: "field: message".
func (p Problem) String() string {
	if p.Field == "" {
		return p.Message
	}
	return p.Field + ": " + p.Message
}
