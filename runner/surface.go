package runner

// Resource is one resource a server lists beside its capabilities (MCP
// resources/list), its strings as the server sent them: sanitize to show.
// Size is in bytes, 0 when not given. Audience, Priority (0 to 1, 0 when
// not given) and LastModified are its annotations; Icons describe its
// icons, which are never fetched.
type Resource struct {
	URI, Name, Title, Description, MIMEType string
	Size                                    int64
	Audience                                []string
	Priority                                float64
	LastModified                            string
	Icons                                   []Icon
}

// Icon is what a server says of one icon: Source is its URL, or for a
// data: URI a description of it ("data: URI, 1.2 KiB") since its bytes
// are never shown; Sizes ("48x48") and Theme ("light", "dark") as sent.
type Icon struct {
	Source, MIMEType, Theme string
	Sizes                   []string
}

// Change is what a server said changed (an MCP list_changed or resource
// update notification, or log messages between calls): Kind is
// ChangeTools, ChangeResources, ChangePrompts, ChangeResource or
// ChangeLog, URI the updated resource's (ChangeResource only).
type Change struct {
	Kind, URI string
}

// The kinds of Change.
const (
	ChangeTools     = "tools"
	ChangeResources = "resources"
	ChangePrompts   = "prompts"
	ChangeResource  = "resource"
	// ChangeLog is log messages the server sent while no call was in
	// flight (a call's own reach it as run events).
	ChangeLog = "log"
)
