// Package runner finds modules, describes and validates them, plans and
// runs invocations with the host's guarantees (docs/protocol.md §2–§8, §11–§13, §16, §18), and
// verifies and stages their artifacts. It never draws: the UI and the CLI
// render what it returns.
package runner
