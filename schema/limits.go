package schema

// Bounds on reading a schema document (Parse, Doc.Effective, Doc.Target,
// and the lint's walk of references).
// A request schema is module input, so every walk over it is bounded here,
// in one place; a document past a bound is refused, never walked further.
const (
	// MaxSchemaBytes bounds one schema document's bytes, checked before
	// any of it is decoded: about 100× the largest request schema in the
	// test corpora (9.8 KB as written). An 11 MB schema took 1.3 s to be
	// refused by the node bounds below (the decoding); past this one it
	// is refused at once.
	MaxSchemaBytes = 1 << 20
	// MaxDocNodes bounds the subschemas one document may hold: 10× the
	// largest request schema in the test corpora (about 2,000).
	MaxDocNodes = 20000
	// MaxDocDepth bounds how deeply subschemas nest as written: far past
	// any hand-written or generated schema, short of a stack worth
	// worrying about.
	MaxDocDepth = 128
	// MaxSchemaLocation bounds a subschema's location (its JSON pointer,
	// the property names and keywords above it): the compiler builds
	// each location as a string, so 90 levels of 10,000-byte names cost
	// it 14 s (the square of the path); real ones are under 200 bytes.
	MaxSchemaLocation = 4096
	// MaxRefChain bounds a chain of references followed from one schema
	// ($ref to $ref to …): a longer one is treated as a cycle.
	MaxRefChain = 64
	// MaxMergeVisits bounds the schemas one Effective call visits while
	// merging $refs and allOf: a few allOf of refs to allOf nest to 2^n
	// visits otherwise.
	MaxMergeVisits = 4096
	// MaxSolveVisits bounds the schemas the lint visits deciding which
	// $ref targets a finite value can satisfy (rounds × targets × their
	// subschemas, quadratic in a long chain): past it every target counts
	// as satisfiable, the answer that refuses nothing.
	MaxSolveVisits = 1 << 20
)

// Bounds on the work compiling and validating do on a module's schema and
// a person's input (docs/protocol.md §14). A bound that is hit is a
// *BoundError naming it; the work stops there.
const (
	// MaxNumberDigits bounds the digits of one number, in a schema or an
	// input: a double holds 17 significant digits, so a longer number is
	// either a mistake or an attack on big.Rat arithmetic.
	MaxNumberDigits = 1000
	// MaxNumberExponent bounds the exponent of one number written with
	// "e": a double reaches 1e308 and 5e-324; "1e10000000" would make
	// every comparison build a 33-million-bit integer.
	MaxNumberExponent = 1000
	// MaxSchemaExpansion bounds the subschemas one validation visits for a
	// value with each property once (refs, allOf, anyOf, oneOf, not,
	// if/then/else and property subschemas expanded, counted before
	// compiling): a few kilobytes of refs that double at each level reach
	// 2^40 otherwise. The largest request schema in the test corpora
	// expands to about 5,000.
	MaxSchemaExpansion = 200000
	// MaxLocationCompares bounds the bytes the compiler compares looking
	// each subschema's location up among those it queued
	// (locationCompares): 7,990 sibling properties of 3,900-byte names,
	// each location the same length, took 30 s of that (about 4 GB/s);
	// the largest request schema in the test corpora needs far less.
	MaxLocationCompares = 1 << 30
	// MaxDescriptorLocationBytes bounds the bytes of all the subschemas'
	// locations of one descriptor's request schemas together, and
	// MaxLocationCompares is counted over them together too: 330 schemas
	// each under the bounds took 27 s and 5.6 GB (780 children under one
	// 3,500-byte name each, 900 MB of locations).
	MaxDescriptorLocationBytes = 64 << 20
	// MaxCompileNodes bounds the subschemas of a document handed to the
	// compiler, whose work grows with their square: 8,000 take about
	// 1 s (5,000 with a pattern each 3–6 s on a busy machine), 20,000
	// took 7 s (4× the largest request schema in the test corpora). A
	// compile stops with its context before each subschema and pattern.
	MaxCompileNodes = 8000
	// MaxPatternInsts bounds the compiled program of one "pattern" or
	// "patternProperties" regex (RE2 instructions): an email regex takes
	// a few hundred; one of 100,000 states is an attack on every match.
	MaxPatternInsts = 20000
	// MaxSchemaPatternInsts bounds the RE2 instructions of all the
	// patterns one compile makes (each counted as often as it is
	// compiled): 2,000 patterns of 4,000 instructions each took 12 s and
	// gigabytes before it.
	MaxSchemaPatternInsts = 500000
	// MaxValidateSteps bounds the subschema evaluations of one validation
	// (about 0.6 s of work): a valid 1 MB input against a real schema
	// takes tens of thousands.
	MaxValidateSteps = 1000000
	// MaxMatchCost bounds one validation's regex work, in program
	// instructions × bytes matched, summed (at most about 0.3 s): a
	// 100-instruction pattern against 600 KB; about 5 ns each.
	MaxMatchCost = 1 << 26
	// MaxFormValidateSteps and MaxFormMatchCost are MaxValidateSteps and
	// MaxMatchCost for the checks the cockpit's form runs as the person
	// types (ValidateForm, Matches): about 60 ms, so a keystroke never
	// waits on a hostile schema. Past them the form says so; the run's
	// own check, with the full bounds, judges the input when it is sent.
	MaxFormValidateSteps = 100000
	MaxFormMatchCost     = 1 << 23
	// MaxFormExpansion bounds the expansion (MaxSchemaExpansion's count)
	// of a schema the cockpit builds form fields for: past it the form
	// opens in JSON mode with a note, since every keystroke re-checks the
	// fields and their branches.
	MaxFormExpansion = 20000
	// MaxBuildItems and MaxBuildString bound what the form and `modbay
	// check` make to satisfy a schema's minItems (or maxItems) and
	// minLength (or maxLength): past them the form opens in JSON mode and
	// check skips the case ("minItems": 1e9 would fill the memory).
	MaxBuildItems = 1000
	// MaxFormEnum bounds the members of one enum the form offers as a
	// choice: past it the form opens in JSON mode (a 300,000-member enum
	// took a second to build, matched against on every change).
	MaxFormEnum    = 5000
	MaxBuildString = 1 << 20
	// MaxBuildTotalItems and MaxBuildTotalString are one build's budget,
	// in total across every level (nested minItems multiply: 1000×1000
	// of 1000-character strings was 2 GB): the fields the form makes,
	// and the array items and string bytes `modbay check` generates for
	// one input (each property it looks at counts as an item). Past them the form opens in JSON mode and check skips
	// the case.
	MaxBuildTotalItems  = 100000
	MaxBuildTotalString = 16 << 20
)
