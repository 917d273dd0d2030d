// Package viewer is the cockpit's artifact viewer: one widget per
// presentation primitive (docs/protocol.md §10) under a header saying what
// the file is. Files are read and rendered in tea.Cmds whose messages carry
// the generation that asked, so a stale render is dropped; every byte
// reaches the screen through the render package, which sanitizes it.
package viewer
