package schema

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"modbay/internal/jsonptr"
	"modbay/modproto"
)

// Drafts modbay reads, by their "$schema" URL.
const (
	Draft7    = "http://json-schema.org/draft-07/schema#"
	Draft2019 = "https://json-schema.org/draft/2019-09/schema"
	Draft2020 = "https://json-schema.org/draft/2020-12/schema"
)

// cacheMax bounds the compiled-schema cache; when full it is emptied
// (schemas are cheap to recompile, unbounded growth is not).
const cacheMax = 1024

// cache holds compiled schemas by the sha256 of their trimmed bytes; the
// handle of a schema that compiled only as draft-07 is also held under its
// Declared bytes, which compile to the same thing.
var cache = struct {
	sync.Mutex
	m map[[sha256.Size]byte]*Compiled
}{m: map[[sha256.Size]byte]*Compiled{}}

// compiles counts the compiles Compile ran (cache misses), for tests.
var compiles atomic.Int64

// Compiled is one schema document compiled once, shared by whoever
// compiled the same bytes: read-only after Compile, safe for concurrent
// use.
type Compiled struct {
	// source is the document as given, whitespace around it trimmed.
	source json.RawMessage
	// declared is source with "$schema" made explicit when it declares
	// none and compiled only as draft-07; source otherwise.
	declared json.RawMessage
	// draft is the "$schema" the document is read as.
	draft string
	// fallback: the document declares no "$schema" and compiled only as
	// draft-07.
	fallback bool
	url      string
	root     *jsonschema.Schema

	// vmu makes validations of this handle one at a time, so meter
	// counts one validation's work (bounds.go).
	vmu   sync.Mutex
	meter *meter

	mu sync.Mutex
	// c reaches subschemas by location (Sub); guarded by mu.
	c *jsonschema.Compiler
	// subs are the subschemas compiled so far by location, nil for one
	// that does not compile; guarded by mu.
	subs map[string]*jsonschema.Schema
	// last is the most recent validation, reused when the same input is
	// validated again (the form's Check and its branch filter judge one
	// value twice); guarded by mu.
	last validation
	// parsed is the document read as a Doc (Doc, once).
	parsed struct {
		once sync.Once
		d    *Doc
		err  error
	}
	// doc is the document decoded, for Redact (read once, on first use).
	doc struct {
		once sync.Once
		v    any
	}
	// dyn is dynamicAnchors' index, made once (dynOnce).
	dyn     map[string][]*jsonschema.Schema
	dynOnce sync.Once
}

// validation is one input's outcome: nil, or the validator's error; and
// the numbers in it no reader can hold (numberRange).
type validation struct {
	input []byte
	err   error
	rng   modproto.ValidationErrors
}

// Compile compiles a schema document (JSON bytes) as the package doc says,
// or returns the handle of an earlier compile of the same bytes. The error
// says why the schema cannot be used ("schema is not JSON: ...", or the
// compiler's reason with the document called "the schema"); failures are
// not cached. A document past a bound of limits.go (its numbers, its
// expansion, a pattern's program) is refused with a *BoundError.
func Compile(raw json.RawMessage) (*Compiled, error) { return CompileContext(nil, raw) }

// CompileContext is Compile stopped by ctx (nil for none) between its
// steps (decoding, the number and pattern checks, the expansion count,
// the compile): an error wrapping ErrCancelled then, never cached.
func CompileContext(ctx context.Context, raw json.RawMessage) (*Compiled, error) {
	if err := CheckSize(raw); err != nil {
		return nil, err
	}
	raw = bytes.TrimSpace(raw)
	key := sha256.Sum256(raw)
	cache.Lock()
	h, ok := cache.m[key]
	cache.Unlock()
	if ok {
		return h, nil
	}
	h, err := compile(ctx, raw, key)
	if err != nil {
		return nil, err
	}
	cache.Lock()
	if len(cache.m) >= cacheMax {
		clear(cache.m)
	}
	cache.m[key] = h
	if h.fallback {
		cache.m[sha256.Sum256(h.declared)] = h
	}
	cache.Unlock()
	return h, nil
}

// compile does Compile's work for trimmed bytes whose sha256 is key.
func compile(ctx context.Context, raw json.RawMessage, key [sha256.Size]byte) (*Compiled, error) {
	compiles.Add(1)
	stopped := func() error {
		if ctx != nil && ctx.Err() != nil {
			return fmt.Errorf("%w (compiling the schema): %v", ErrCancelled, context.Cause(ctx))
		}
		return nil
	}
	if err := stopped(); err != nil {
		return nil, err
	}
	// A document Parse refuses is never compiled: past MaxDocNodes the
	// expansion is uncounted, and the compiler's own work on it is
	// superlinear and cannot be stopped.
	d, err := Parse(raw)
	if IsBound(err) {
		return nil, err
	}
	if err != nil && !json.Valid(raw) {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("schema is not valid: %w", err)
	}
	if n := len(d.Nodes()); n > MaxCompileNodes {
		return nil, &BoundError{Bound: "MaxCompileNodes", Limit: MaxCompileNodes,
			Detail: fmt.Sprintf("the schema has %d subschemas, more than %d to compile", n, MaxCompileNodes)}
	}
	if c := locationCompares(d); c > MaxLocationCompares {
		return nil, &BoundError{Bound: "MaxLocationCompares", Limit: MaxLocationCompares,
			Detail: fmt.Sprintf("the compiler would compare more than %d bytes of the schema's locations (subschemas whose JSON pointers have the same length, each against each)", int64(MaxLocationCompares))}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	DropNullKeywords(doc)
	if err := checkNumbers(doc, nil, "the schema at "); err != nil {
		return nil, err
	}
	if err := stopped(); err != nil {
		return nil, err
	}
	if err := checkPatterns(ctx, doc); err != nil {
		return nil, err
	}
	if err := stopped(); err != nil {
		return nil, err
	}
	if n := Expansion(d); n > MaxSchemaExpansion {
		return nil, &BoundError{Bound: "MaxSchemaExpansion", Limit: MaxSchemaExpansion,
			Detail: fmt.Sprintf("the schema expands to more than %d subschemas per value", MaxSchemaExpansion)}
	}
	if err := stopped(); err != nil {
		return nil, err
	}
	url := "modbay:///schema/" + hex.EncodeToString(key[:]) + ".json"
	h := &Compiled{source: raw, declared: raw, draft: Draft2020, url: url, meter: &meter{}}
	try := func(d *jsonschema.Draft) (c *jsonschema.Compiler, sch *jsonschema.Schema, err error) {
		c = jsonschema.NewCompiler()
		c.DefaultDraft(d)
		c.UseLoader(RefusingLoader{})
		useFormats(c)
		useNumbers(c)
		useMeter(c, h.meter)
		if err := c.AddResource(url, doc); err != nil {
			return nil, nil, err
		}
		if merr := h.metered(ctx, func() {
			h.meter.compiling = true
			sch, err = c.Compile(url)
		}); merr != nil {
			return nil, nil, merr
		}
		if err != nil && h.meter.pattern != nil {
			err = h.meter.pattern
		}
		return c, sch, err
	}
	declared, dialect := declaredDraft(doc)
	if declared != "" {
		h.draft = declared
	}
	c, sch, err := try(jsonschema.Draft2020)
	if errors.Is(err, ErrCancelled) {
		return nil, err
	}
	if err != nil && !dialect && !IsBound(err) {
		if c7, sch7, err7 := try(jsonschema.Draft7); err7 == nil {
			c, sch, err = c7, sch7, nil
			h.draft, h.fallback, h.declared = Draft7, true, withDraft(raw, Draft7)
		}
	}
	if IsBound(err) {
		return nil, err
	}
	if err != nil {
		return nil, unnamed(compileError(err), url)
	}
	h.c, h.root = c, sch
	h.subs = map[string]*jsonschema.Schema{"": sch}
	return h, nil
}

// declaredDraft returns the document's "$schema" when it is a string, and
// whether it has a "$schema" at all.
func declaredDraft(doc any) (string, bool) {
	m, _ := doc.(map[string]any)
	v, ok := m["$schema"]
	s, _ := v.(string)
	return s, ok
}

// unnamed returns err with the internal URL the compiler knows the schema
// by said as "the schema": the URL means nothing to the person reading it.
// maxCompileCauses and maxCauseRunes bound a compile error's text: the
// library's lists every cause with its whole location, which grows with
// the square of a deep schema's key lengths (90 levels of 10,000-byte
// keys: 805 MB).
const (
	maxCompileCauses = 4
	maxCauseRunes    = 300
)

// compilePrinter prints the library's error kinds, in its own language.
var compilePrinter = message.NewPrinter(language.English)

// compileError is err, a compile's, with its text bounded: a schema not
// valid against its metaschema names at most maxCompileCauses of the
// places it breaks, each location and message cut to maxCauseRunes, and
// how many more; any other error's text cut to maxCauseRunes × 8.
func compileError(err error) error {
	var sv *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if !errors.As(err, &sv) || !errors.As(sv.Err, &ve) {
		return errors.New(cutRunes(err.Error(), maxCauseRunes*8))
	}
	var listed []string
	seen := map[string]bool{}
	leaves, tried := 0, 0
	eachLeaf(ve, func(e *jsonschema.ValidationError) {
		leaves++
		if len(listed) == maxCompileCauses || tried == 4*maxCompileCauses || e.ErrorKind == nil {
			return
		}
		tried++
		loc := cutRunes(instancePointer(e.InstanceLocation), maxCauseRunes)
		line := fmt.Sprintf("at '%s': %s", loc, cutRunes(e.ErrorKind.LocalizedString(compilePrinter), maxCauseRunes))
		if seen[line] {
			return
		}
		seen[line] = true
		listed = append(listed, line)
	})
	msg := "the schema is not valid against metaschema: " + strings.Join(listed, "; ")
	if more := leaves - len(listed); more > 0 {
		msg += fmt.Sprintf("; and %d more", more)
	}
	return errors.New(msg)
}

// LocationCost is what compiling raw costs in its subschemas' locations:
// the bytes the compiler compares looking them up (MaxLocationCompares'
// count) and the bytes of the locations themselves; 0, 0 when raw is not
// a schema document within the bounds.
func LocationCost(raw json.RawMessage) (compares, bytes int64) {
	d, err := Parse(raw)
	if err != nil {
		return 0, 0
	}
	for _, n := range d.order {
		bytes += int64(len(n.Loc))
	}
	return locationCompares(d), bytes
}

// locationCompares is the most bytes the compiler compares finding each
// subschema's location among those it queued (a linear search by
// string equality, which compares two strings' bytes only when their
// lengths are the same): for each length, each pair of locations of
// that length, whole.
func locationCompares(d *Doc) int64 {
	byLen := map[int]int64{}
	for _, n := range d.order {
		byLen[len(n.Loc)]++
	}
	var c int64
	for l, g := range byLen {
		c += g * (g - 1) / 2 * int64(l)
	}
	return c
}

// instancePointer is a JSON pointer of tokens, at most a few times
// maxCauseRunes long (the rest is cut anyway).
func instancePointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		if b.Len() > 8*maxCauseRunes {
			break
		}
		b.WriteByte('/')
		b.WriteString(jsonptr.Escape(t))
	}
	return b.String()
}

// cutRunes is s cut to n runes, its middle dropped for "…".
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n/2]) + "…" + string(r[len(r)-n/2:])
}

func unnamed(err error, url string) error {
	msg := strings.ReplaceAll(err.Error(), `"`+url+`#"`, "the schema")
	return errors.New(strings.ReplaceAll(msg, url, "the schema"))
}

// withDraft returns raw with "$schema" set to draft at the front, for a
// document that declares none and only compiles under draft (so every
// reader of the bytes picks the same draft).
func withDraft(raw json.RawMessage, draft string) json.RawMessage {
	if len(raw) < 2 || raw[0] != '{' {
		return raw
	}
	k, _ := json.Marshal(draft)
	rest := bytes.TrimSpace(raw[1:])
	out := []byte(`{"$schema":` + string(k))
	if len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...)
}

// Source is the document as compiled (the bytes given, whitespace around
// them trimmed). The caller must not modify it.
func (h *Compiled) Source() json.RawMessage { return h.source }

// Declared is the document with its draft made explicit: Source with
// "$schema": draft-07 added at the front when it declares no "$schema" and
// compiles only as draft-07 (see Fallback), Source otherwise. Compiling
// Declared gives this same handle. The caller must not modify it.
func (h *Compiled) Declared() json.RawMessage { return h.declared }

// Draft is the "$schema" URL the document is read as: the one it declares,
// else Draft2020, or Draft7 when Fallback.
func (h *Compiled) Draft() string { return h.draft }

// Fallback reports whether the document declares no "$schema" and
// compiled only as draft-07.
func (h *Compiled) Fallback() bool { return h.fallback }

// sub returns the subschema at loc (a JSON pointer into the document, ""
// for the root), compiling it on first use; nil when it does not compile.
func (h *Compiled) sub(loc string) *jsonschema.Schema {
	h.mu.Lock()
	defer h.mu.Unlock()
	sch, ok := h.subs[loc]
	if !ok {
		var err error
		sch, err = h.c.Compile(h.url + "#" + loc)
		if err != nil {
			sch = nil
		}
		h.subs[loc] = sch
	}
	return sch
}

// Matches reports whether value (JSON) is valid against the subschema at
// loc (a JSON pointer into the document, "" for the root, as a form reads
// an "if" or a oneOf branch). A subschema that does not compile, a value
// that is not JSON, or a validation past the form's bounds
// (MaxFormValidateSteps) matches nothing.
func (h *Compiled) Matches(loc string, value json.RawMessage) bool {
	if h == nil {
		return false
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil || checkNumbers(inst, nil, "") != nil {
		return false
	}
	ok := false
	if err := h.meteredWithin(nil, formBudget, func() {
		if sch := h.sub(loc); sch != nil {
			if h.meter.unique {
				h.meter.chargeUnique(inst)
			}
			ok = sch.Validate(inst) == nil
		}
	}); err != nil {
		return false
	}
	return ok
}
