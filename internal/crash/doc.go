// Package crash ends modbay when a panic reaches the top of a goroutine no
// boundary recovers: the terminal is given back first (OnCrash, the
// cockpit's release), the panic and its stack go to stderr sanitized of
// control bytes, and the process exits ExitCode (docs/protocol.md §15),
// never 2 and never with the terminal left in the alternate screen.
package crash
