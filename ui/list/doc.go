// Package list is the cockpit's one list component (after
// charmbracelet/crush internal/ui/list): a filter ("/"), a cursor,
// scrolling and a split pane with the selected item's detail. Items give a
// filter value, a row and a detail, already sanitized: the list never
// sanitizes.
package list
