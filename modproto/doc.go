// Package modproto holds the xibodev.module/v1 wire protocol: its types
// (with the protocol's JSON names), constants, normalization, validation
// and decoding, as docs/protocol.md states them. It imports nothing of
// modbay's own; every other package builds on it.
package modproto
