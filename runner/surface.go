package runner

// Resource is one resource a server lists beside its capabilities (MCP
// resources/list), its strings as the server sent them: sanitize to show.
// Size is in bytes, 0 when not given.
type Resource struct {
	URI, Name, Title, Description, MIMEType string
	Size                                    int64
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
