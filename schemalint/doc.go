// Package schemalint checks a module's request schemas for what makes them
// unusable or unportable (schemas that do not compile, $refs that resolve
// to nothing, "required" names missing from "properties", keys that are no
// keyword, bounds and $ref cycles no input satisfies) and for constructs
// model-provider tool APIs reject (warnings only; strictUnsupported says
// which and why). It reads schemas as schema.Doc, like the form and
// `modbay check`; `modbay validate` prints its findings, which never change
// whether a module is valid under docs/protocol.md.
package schemalint
