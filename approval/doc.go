// Package approval is the approval socket between the serve processes and
// the cockpits of one home (docs/gateway.md "Approvals in the cockpit"):
// each running cockpit listens on a Unix socket under <home>/serve/cockpits,
// accepting only peers of its own user (SO_PEERCRED); a serve process
// whose call needs approval asks every cockpit at once, the first answer
// wins and the others' questions are withdrawn. Messages are JSON lines.
// Questions are also stored under <home>/serve/pending (same user only),
// so one outlives its serve process: a cockpit answers it there and a
// later serve process honours the answer once for the same call.
package approval
