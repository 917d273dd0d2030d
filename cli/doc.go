// Package cli is modbay's command line: the root command, which opens the
// cockpit, and every subcommand (list, describe, validate, invoke, check,
// dev, render, doctor, new, history, jobs, rerun, skills, mcp), each an
// options struct, a new<Name>Command and a run function behind a runF seam
// (root.go's runHooks); exit codes are exit.go's (docs/protocol.md §15).
package cli
