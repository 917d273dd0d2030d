// Package contain starts a module process contained by the kernel (its own
// session and PID and network namespaces, Landlock, a read-only mount
// namespace as root, seccomp, no_new_privs, resource limits) and records
// what was applied, layer by layer, as an Enforcement. docs/containment.md
// says how, and why from one locked OS thread.
package contain
