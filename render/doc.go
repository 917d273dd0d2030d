// Package render turns artifact bytes into terminal text with pure
// functions of (bytes, [Options], metadata): nothing here runs a module,
// reads a file or touches the network, and every module byte passes
// [Sanitize] (with [Options.NoColor] the output holds no ESC byte). [Artifact]
// dispatches on the primitive [Resolve] picks (docs/protocol.md §10).
package render
