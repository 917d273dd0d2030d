// Package common holds what every screen and dialog of the cockpit shares:
// the terminal size, the styles and the clock (after charmbracelet/crush
// internal/ui/common). It also has the small text helpers that keep every
// line inside the terminal width.
package common
