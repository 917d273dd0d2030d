// Package conform is `modbay check`: inputs generated from a capability's
// request schema (Generate), and the checklist of a module's describes,
// verdict and invokes judged by the host's own rules (Check). Generate reads
// the schema as schema.Doc, like the form and the lint, and asks the
// compiled handle whether each case is what it claims; a case it cannot
// make, or whose claim the handle denies, is skipped with the reason.
package conform
