// Package schema is modbay's one owner of JSON Schema: every schema a
// module sends (docs/protocol.md §9) is compiled here into a cached Compiled
// handle shared by the runner, the form and the lint, and every validation
// error is reported here as findings at JSON pointers, in plain words.
// A document's structure is read once, as a Doc (document.go), which the form,
// check and the lint read. docs/internals.md "Schemas" says how a schema is
// read.
package schema
