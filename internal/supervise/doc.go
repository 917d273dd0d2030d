// Package supervise keeps the terminal usable whatever way the cockpit
// dies: Run re-executes modbay as a child that owns the terminal while the
// parent only waits, having saved the terminal's modes; the child says the
// code it exits with through a pipe (Exit), and a child that ends without
// saying it (a fatal runtime error, out of memory, a signal) has the
// terminal restored by the parent, which tells it in one line and exits 70
// (docs/protocol.md §15).
package supervise
