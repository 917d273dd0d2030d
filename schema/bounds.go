package schema

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// BoundError is a bound of limits.go that a schema or an input hit: the
// work stopped there (docs/protocol.md §14). Callers route on it with
// errors.As: the runner makes it a host verdict, the form a note.
type BoundError struct {
	// Bound is the constant's name ("MaxValidateSteps").
	Bound string
	// Limit is its value; Detail says what passed it, in plain words.
	Limit  int64
	Detail string
}

func (e *BoundError) Error() string {
	return fmt.Sprintf("%s (bound %s = %d)", e.Detail, e.Bound, e.Limit)
}

// ErrCancelled is wrapped by a validation stopped by its context.
var ErrCancelled = errors.New("validation cancelled")

// IsBound reports whether err is, or wraps, a *BoundError.
func IsBound(err error) bool {
	var be *BoundError
	return errors.As(err, &be)
}

// CheckSize returns a *BoundError naming MaxSchemaBytes when the schema
// document raw is larger, before anything decodes it; nil otherwise.
func CheckSize(raw []byte) error {
	if len(raw) <= MaxSchemaBytes {
		return nil
	}
	return &BoundError{Bound: "MaxSchemaBytes", Limit: MaxSchemaBytes,
		Detail: fmt.Sprintf("the schema is %d bytes, more than %d", len(raw), MaxSchemaBytes)}
}

// CheckNumber returns a *BoundError when the JSON number text s passes
// MaxNumberDigits or MaxNumberExponent, nil otherwise; where names it
// ("/n", "the schema at /properties/n").
func CheckNumber(s, where string) error {
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	digits := 0
	for _, c := range mant {
		if c >= '0' && c <= '9' {
			digits++
		}
	}
	if digits > MaxNumberDigits {
		return &BoundError{Bound: "MaxNumberDigits", Limit: MaxNumberDigits,
			Detail: fmt.Sprintf("%s: a number of %d digits", where, digits)}
	}
	if hasExp {
		exp = strings.TrimLeft(strings.TrimLeft(exp, "+-"), "0")
		if n, err := strconv.Atoi(exp); len(exp) > 9 || err == nil && n > MaxNumberExponent {
			return &BoundError{Bound: "MaxNumberExponent", Limit: MaxNumberExponent,
				Detail: fmt.Sprintf("%s: a number with exponent %s", where, clip(exp))}
		}
	}
	return nil
}

// clip shortens s for a message.
func clip(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}

// checkNumbers walks a decoded value (numbers are json.Number) and
// returns the first number past a bound, at its pointer.
func checkNumbers(v any, tokens []string, prefix string) error {
	switch v := v.(type) {
	case json.Number:
		return CheckNumber(string(v), prefix+Pointer(tokens))
	case map[string]any:
		for k, c := range v {
			if err := checkNumbers(c, append(tokens[:len(tokens):len(tokens)], k), prefix); err != nil {
				return err
			}
		}
	case []any:
		for i, c := range v {
			if err := checkNumbers(c, append(tokens[:len(tokens):len(tokens)], fmt.Sprint(i)), prefix); err != nil {
				return err
			}
		}
	}
	return nil
}

// Expansion returns how many subschemas a validation of d visits for a
// value holding each property once, counting every in-place applicator
// and reference expanded, saturated just past MaxSchemaExpansion. A
// schema reached again while it is being counted counts once (a
// recursive schema descends into the value, which is finite).
func Expansion(d *Doc) int64 {
	memo := map[*Node]int64{}
	const busy = -1
	var cost func(n *Node) int64
	cost = func(n *Node) int64 {
		if n == nil {
			return 0
		}
		if c, ok := memo[n]; ok {
			if c == busy {
				return 1
			}
			return c
		}
		memo[n] = busy
		total := int64(1)
		add := func(c int64) {
			total += c
			if total > MaxSchemaExpansion {
				total = MaxSchemaExpansion + 1
			}
		}
		add(cost(d.Target(n)))
		for _, group := range [][]*Node{n.AllOf, n.AnyOf, n.OneOf, n.Prefix} {
			for _, c := range group {
				add(cost(c))
			}
		}
		for _, c := range []*Node{n.Not, n.If, n.Then, n.Else, n.Additional, n.PropertyNames, n.Items} {
			add(cost(c))
		}
		for _, group := range [][]Prop{n.Props, n.PatternProps, n.DepSchemas} {
			for _, p := range group {
				add(cost(p.Schema))
			}
		}
		memo[n] = total
		return total
	}
	return cost(d.Root())
}

// CompilePattern compiles a schema's regex (a "pattern" or a
// "patternProperties" name) as RE2, refusing one whose program passes
// MaxPatternInsts. Every reader of a module's pattern compiles it here.
func CompilePattern(p string) (*regexp.Regexp, int, error) {
	if len(p) > 16*MaxPatternInsts {
		return nil, 0, patternBound(len(p))
	}
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, 0, unsupportedPattern(err)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, 0, err
	}
	if len(prog.Inst) > MaxPatternInsts {
		return nil, 0, patternBound(len(prog.Inst))
	}
	rx, err := regexp.Compile(p)
	return rx, len(prog.Inst), err
}

// unsupportedPattern words a parse error of ECMA-262 syntax RE2 does not
// run (lookaround, backreferences: they need backtracking, whose time no
// bound holds) as such: the pattern may be valid where the schema was
// written, it is not here.
func unsupportedPattern(err error) error {
	var se *syntax.Error
	if errors.As(err, &se) {
		switch {
		case (se.Code == syntax.ErrInvalidPerlOp || se.Code == syntax.ErrInvalidNamedCapture) && lookaround(se.Expr) != "":
			return fmt.Errorf("lookaround %s is not supported: modbay matches patterns in linear time (RE2 syntax, docs/protocol.md §14)", lookaround(se.Expr))
		case se.Code == syntax.ErrInvalidEscape && len(se.Expr) == 2 && se.Expr[1] >= '1' && se.Expr[1] <= '9':
			return fmt.Errorf("backreference %s is not supported: modbay matches patterns in linear time (RE2 syntax, docs/protocol.md §14)", se.Expr)
		}
	}
	return err
}

// lookaround is the lookahead or lookbehind opener expr starts with, or "".
func lookaround(expr string) string {
	for _, op := range []string{"(?<=", "(?<!", "(?=", "(?!"} {
		if strings.HasPrefix(expr, op) {
			return op
		}
	}
	return ""
}

func patternBound(n int) error {
	return &BoundError{Bound: "MaxPatternInsts", Limit: MaxPatternInsts,
		Detail: fmt.Sprintf("a pattern compiling to more than %d instructions (%d)", MaxPatternInsts, n)}
}

// meter counts one validation's work against MaxValidateSteps and
// MaxMatchCost and watches its context; a Compiled handle has one, used by
// one validation at a time (Compiled.vmu).
type meter struct {
	ctx          context.Context
	steps, match int64
	// maxSteps and maxMatch are this validation's bounds (budget).
	maxSteps, maxMatch int64
	// insts counts the pattern instructions compiled (a compile's).
	insts int64
	// pattern is the bound a pattern compile hit, kept for the compile's
	// error (the compiler words it as its own).
	pattern error
	// unique is set once a subschema with "uniqueItems": true is
	// compiled: validations then charge chargeUnique first. Kept across
	// validations.
	unique bool
	// compiling is set while the document is compiled whole (its
	// compiler thrown away if stopped): only then does ctx stop it
	// between subschemas. A subschema compiled later, for a validation,
	// shares the handle's compiler and runs to its end.
	compiling bool
}

// chargeUnique counts, before a validation, the work "uniqueItems" may
// do on inst (docs/protocol.md §14): the validator hashes every array it
// applies to whole, a value once per array it is in, and a number as a
// big.Rat (1 step, and 1 more per 32 of its exponent: 20,000 numbers of
// 1e999 took 0.3–0.5 s). Every array is counted, as if uniqueItems held
// for each, against MaxValidateSteps (the form's bound as it types).
func (m *meter) chargeUnique(inst any) {
	var walk func(v any, arrays int64)
	walk = func(v any, arrays int64) {
		switch x := v.(type) {
		case []any:
			arrays++
			m.stepN(arrays)
			for _, c := range x {
				walk(c, arrays)
			}
		case map[string]any:
			m.stepN(arrays)
			for _, c := range x {
				walk(c, arrays)
			}
		case json.Number:
			w := int64(1)
			if i := strings.IndexAny(string(x), "eE"); i >= 0 {
				if e, err := strconv.Atoi(strings.TrimLeft(string(x[i+1:]), "+-")); err == nil {
					w += int64(e) / 32
				}
			}
			m.stepN(arrays * w)
		default:
			m.stepN(arrays)
		}
	}
	walk(inst, 0)
}

// stepN counts n steps at once (step's bound and context check).
func (m *meter) stepN(n int64) {
	if n <= 0 {
		return
	}
	m.steps += n - 1
	m.step()
}

// stopped ends a compile whose ctx is done, as step ends a validation.
func (m *meter) stopped() {
	if m.compiling && m.ctx != nil && m.ctx.Err() != nil {
		panic(stop{fmt.Errorf("%w (compiling the schema): %v", ErrCancelled, context.Cause(m.ctx))})
	}
}

// stop is what a meter panics with to end a validation; run recovers it.
type stop struct{ err error }

// step counts one subschema evaluation.
func (m *meter) step() {
	m.steps++
	if m.steps > m.maxSteps {
		name := "MaxValidateSteps"
		if m.maxSteps == MaxFormValidateSteps {
			name = "MaxFormValidateSteps"
		}
		panic(stop{&BoundError{Bound: name, Limit: m.maxSteps,
			Detail: fmt.Sprintf("validation visited more than %d subschemas", m.maxSteps)}})
	}
	if m.steps&1023 == 0 && m.ctx != nil && m.ctx.Err() != nil {
		panic(stop{fmt.Errorf("%w: %v", ErrCancelled, context.Cause(m.ctx))})
	}
}

// charge counts one regex match of n bytes by a program of insts.
func (m *meter) charge(insts, n int) {
	m.match += int64(insts) * int64(n+1)
	if m.match > m.maxMatch {
		name := "MaxMatchCost"
		if m.maxMatch == MaxFormMatchCost {
			name = "MaxFormMatchCost"
		}
		panic(stop{&BoundError{Bound: name, Limit: m.maxMatch,
			Detail: "validation's pattern matching passed its bound"}})
	}
	m.step()
}

// meteredRegexp is a pattern whose every match is charged to a meter.
type meteredRegexp struct {
	re    *regexp.Regexp
	insts int
	m     *meter
}

func (r meteredRegexp) String() string { return r.re.String() }

func (r meteredRegexp) MatchString(s string) bool {
	r.m.charge(r.insts, len(s))
	return r.re.MatchString(s)
}

// stepVocabURL names stepVocab; it is never fetched.
const stepVocabURL = "modbay:///vocab/steps"

// useMeter makes every subschema c compiles count its evaluations on m,
// and every pattern compile bounded and its matches charged to m.
func useMeter(c *jsonschema.Compiler, m *meter) {
	c.RegisterVocabulary(&jsonschema.Vocabulary{
		URL: stepVocabURL,
		Compile: func(_ *jsonschema.CompilerContext, obj map[string]any) (jsonschema.SchemaExt, error) {
			m.stopped() // once per subschema: the compile stops with its ctx
			if u, _ := obj["uniqueItems"].(bool); u {
				m.unique = true
			}
			return stepExt{m}, nil
		},
	})
	c.UseRegexpEngine(func(p string) (jsonschema.Regexp, error) {
		m.stopped()
		re, insts, err := CompilePattern(p)
		if err == nil {
			if m.insts += int64(insts); m.insts > MaxSchemaPatternInsts {
				err = &BoundError{Bound: "MaxSchemaPatternInsts", Limit: MaxSchemaPatternInsts,
					Detail: fmt.Sprintf("the schema's patterns compile to more than %d instructions in all", MaxSchemaPatternInsts)}
			}
		}
		if IsBound(err) {
			m.pattern = err
		}
		if err != nil {
			return nil, err
		}
		return meteredRegexp{re, insts, m}, nil
	})
}

// stepExt counts one evaluation of its subschema.
type stepExt struct{ m *meter }

func (e stepExt) Validate(*jsonschema.ValidatorContext, any) { e.m.step() }

// metered runs f as one validation of h under ctx (nil for none): one at
// a time per handle, its work bounded by the meter. The error is the
// *BoundError hit or the cancellation, nil when f ran to its end. A panic
// that is not the meter's is returned as an error too: nothing a schema
// holds may crash the host.
func (h *Compiled) metered(ctx context.Context, f func()) (err error) {
	return h.meteredWithin(ctx, fullBudget, f)
}

// budget is what one validation may spend: MaxValidateSteps and
// MaxMatchCost, or the form's smaller bounds.
type budget struct{ steps, match int64 }

var (
	fullBudget = budget{MaxValidateSteps, MaxMatchCost}
	formBudget = budget{MaxFormValidateSteps, MaxFormMatchCost}
)

// meteredWithin is metered under budget b.
func (h *Compiled) meteredWithin(ctx context.Context, b budget, f func()) (err error) {
	h.vmu.Lock()
	defer h.vmu.Unlock()
	*h.meter = meter{ctx: ctx, maxSteps: b.steps, maxMatch: b.match, unique: h.meter.unique}
	defer func() {
		if r := recover(); r != nil {
			if s, ok := r.(stop); ok {
				err = s.err
				return
			}
			err = fmt.Errorf("validator failed on this schema: %v", r)
		}
	}()
	if ctx != nil && ctx.Err() != nil {
		return fmt.Errorf("%w: %v", ErrCancelled, context.Cause(ctx))
	}
	f()
	return nil
}

// Rat reads the JSON number text s exactly, as big.Rat.SetString does,
// refusing (false) one past MaxNumberDigits or MaxNumberExponent: every
// exact reading of a number a module or a person wrote goes through here.
func Rat(s string) (*big.Rat, bool) {
	if CheckNumber(s, "") != nil {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// checkPatterns compiles every regex of a decoded schema document (each
// "pattern" string, each "patternProperties" name) before the compiler
// sees them, against MaxPatternInsts each and MaxSchemaPatternInsts in
// all: the compiler's own check of the document compiles them again,
// unbounded.
func checkPatterns(ctx context.Context, doc any) error {
	var total int64
	var walk func(v any) error
	check := func(p string) error {
		if ctx != nil && ctx.Err() != nil {
			return fmt.Errorf("%w (compiling the schema): %v", ErrCancelled, context.Cause(ctx))
		}
		_, n, err := CompilePattern(p)
		if IsBound(err) {
			return err
		}
		if total += int64(n); total > MaxSchemaPatternInsts {
			return &BoundError{Bound: "MaxSchemaPatternInsts", Limit: MaxSchemaPatternInsts,
				Detail: fmt.Sprintf("the schema's patterns compile to more than %d instructions in all", MaxSchemaPatternInsts)}
		}
		return nil // a pattern that does not parse is the compiler's to report
	}
	walk = func(v any) error {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if s, ok := c.(string); ok && k == "pattern" {
					if err := check(s); err != nil {
						return err
					}
				}
				if m, ok := c.(map[string]any); ok && k == "patternProperties" {
					for p := range m {
						if err := check(p); err != nil {
							return err
						}
					}
				}
				if err := walk(c); err != nil {
					return err
				}
			}
		case []any:
			for _, c := range x {
				if err := walk(c); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(doc)
}
