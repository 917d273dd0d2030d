// Package ui is modbay's interactive cockpit, a Bubble Tea program: one
// root Model routes every message; screens meet one contract (Screen) and
// sit on a stack; nothing in Update does I/O. docs/internals.md "The
// cockpit" says how, and which file holds what.
package ui
