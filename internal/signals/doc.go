// Package signals turns SIGINT, SIGTERM and SIGHUP into a cancelled
// context and makes sure they end the process even when the work in flight
// does not stop (docs/protocol.md §15).
package signals
