package schema

// Bounds on reading a schema document (Parse, Doc.Effective, Doc.Target,
// and the lint's walk of references).
// A request schema is module input, so every walk over it is bounded here,
// in one place; a document past a bound is refused, never walked further.
const (
	// MaxDocNodes bounds the subschemas one document may hold: 10× the
	// largest request schema in the test corpora (about 2,000).
	MaxDocNodes = 20000
	// MaxDocDepth bounds how deeply subschemas nest as written: far past
	// any hand-written or generated schema, short of a stack worth
	// worrying about.
	MaxDocDepth = 128
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
