package modproto

import "fmt"

// Bounds of the id grammar (docs/protocol.md §13).
const (
	// MaxModuleIDBytes bounds a module id: it names a directory.
	MaxModuleIDBytes = 64
	// MaxCapabilityIDBytes bounds a capability id (dotted names such as
	// creative.tools.describe need more room than a directory name).
	MaxCapabilityIDBytes = 128
	// MaxRootNameBytes bounds a root name: it names a directory.
	MaxRootNameBytes = 64
)

// The grammar's rules as said to a person (docs/protocol.md §13).
const (
	ModuleIDRule     = "a module id is 1–64 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit (docs/protocol.md §13)"
	CapabilityIDRule = "a capability id is 1–128 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit (docs/protocol.md §13)"
	RootNameRule     = "a root name is 1–64 ASCII letters, digits, '_' or '-', starting with a letter or digit (docs/protocol.md §13)"
)

// ValidModuleID reports whether id keeps docs/protocol.md §13's module id
// grammar. Such an id has no '/', never is "." or "..", and never starts
// with '.', so it can name a directory without climbing out of its parent
// or hiding in it. A plain loop, not a regexp: it runs on every start.
func ValidModuleID(id string) bool { return validName(id, MaxModuleIDBytes, true) }

// ValidCapabilityID reports whether id keeps docs/protocol.md §13's
// capability id grammar (the module id's characters, up to 128 bytes).
func ValidCapabilityID(id string) bool { return validName(id, MaxCapabilityIDBytes, true) }

// ValidRootName reports whether name keeps docs/protocol.md §13's root name
// grammar: no dot at all, so no root name is a hidden or relative path.
func ValidRootName(name string) bool { return validName(name, MaxRootNameBytes, false) }

// CheckModuleID is nil when id is a valid module id, else an error saying
// which id broke which rule.
func CheckModuleID(id string) error {
	if ValidModuleID(id) {
		return nil
	}
	return fmt.Errorf("module id %q breaks the id grammar: %s", clip(id), ModuleIDRule)
}

// validName is the shared grammar: 1–max bytes of ASCII letters, digits,
// '_', '-' and (when dots) '.', the first a letter or digit.
func validName(s string, max int, dots bool) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '_' || c == '-'):
		case i > 0 && dots && c == '.':
		default:
			return false
		}
	}
	return true
}

// ClipID bounds a module-supplied id quoted in an error or a reason (80
// bytes and "…"), so a megabyte id never becomes a megabyte message.
func ClipID(s string) string { return clip(s) }

// clip is ClipID.
func clip(s string) string {
	const max = 80
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
