// Package styles holds the cockpit's one Styles struct, built from a few
// semantic colors for a dark or light terminal, or without any color when
// NO_COLOR is set (after charmbracelet/crush internal/ui/styles). Nothing
// here is a package-level style: every screen reaches its styles through the
// shared common.Common.
package styles
