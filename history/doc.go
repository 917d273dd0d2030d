// Package history records every run modbay makes under <home>/history (one
// record per run, atomic writes, an index, flock across processes, one
// poller per job, secrets never written), so a run can be come back to
// after its screen is gone. docs/internals.md "History" gives the rules.
package history
