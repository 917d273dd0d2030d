package form

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"modbay/schema"
)

// Form is a request schema as a tree of nodes.
type Form struct {
	// building is set while build makes the tree; made counts the nodes
	// it made, against schema.MaxBuildTotalItems.
	building bool
	made     int
	// Schema is what the input is validated against: the request schema,
	// with "$schema" added when it declares none and only compiles as
	// draft-07 (so the validator reads it the same way); nil for none.
	Schema json.RawMessage
	// Draft is the draft the schema is read as.
	Draft string
	// Root is the whole input; for an object schema its Children are the
	// top-level fields.
	Root *Node
	// Gen counts structural changes (items added, variants switched,
	// conditionals applied), so a view knows to rebuild its rows.
	Gen int

	doc *schema.Doc
	// comp is the request schema compiled (package schema), shared with
	// the runner and every other reader of the same bytes; nil for none.
	comp *schema.Compiled
	// prefer holds, while SetValue runs, the variants chosen before it.
	prefer map[string]chosen
}

// Build reads a request schema into a form. A nil or empty schema gives a
// form with one JSON field for the whole input, starting at {}. A schema
// that is not JSON, or does not compile under its draft, is an error.
func Build(raw json.RawMessage) (*Form, error) { return BuildContext(nil, raw) }

// BuildContext is Build stopped by ctx (nil for none) while the schema
// compiles and before the fields are made: an error wrapping
// schema.ErrCancelled then.
func BuildContext(ctx context.Context, raw json.RawMessage) (*Form, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		f := &Form{Draft: Draft2020}
		f.doc = schema.EmptyDoc()
		f.Root = &Node{Kind: KindJSON, Required: true, Choice: -1, Variant: -1, Text: "{}", Schema: &Schema{}}
		return f, nil
	}
	if t[0] != '{' && t[0] != 't' && t[0] != 'f' {
		return nil, errors.New("request schema is not a JSON object")
	}
	comp, err := schema.CompileContext(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("request schema: %w", err)
	}
	doc, err := comp.Doc()
	if err != nil {
		return nil, fmt.Errorf("request schema: %w", err)
	}
	if n := schema.Expansion(doc); n > schema.MaxFormExpansion {
		return nil, &schema.BoundError{Bound: "MaxFormExpansion", Limit: schema.MaxFormExpansion,
			Detail: fmt.Sprintf("the schema expands to %d subschemas per value", n)}
	}
	for _, n := range doc.Nodes() {
		if len(n.Enum) > schema.MaxFormEnum {
			return nil, &schema.BoundError{Bound: "MaxFormEnum", Limit: schema.MaxFormEnum,
				Detail: fmt.Sprintf("request schema at %s lists %d choices", n.Loc, len(n.Enum))}
		}
		if n.MinItems != nil && *n.MinItems > schema.MaxBuildItems {
			return nil, &schema.BoundError{Bound: "MaxBuildItems", Limit: schema.MaxBuildItems,
				Detail: fmt.Sprintf("request schema at %s asks for at least %d items", n.Loc, *n.MinItems)}
		}
	}
	if ctx != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("request schema: %w: %v", schema.ErrCancelled, context.Cause(ctx))
	}
	return build(comp, doc)
}

// buildBound is the panic that stops a build past
// schema.MaxBuildTotalItems (the fields made, in total: nested minItems
// multiply), recovered in build as its error.
type buildBound struct{ err error }

// build makes the form of a compiled schema. Nothing a schema holds may
// crash the cockpit: a panic building it is an error, as is a schema
// whose defaults cannot be checked within the bounds (docs/protocol.md
// §14), since each keystroke would check them again.
func build(comp *schema.Compiled, doc *schema.Doc) (f *Form, err error) {
	defer func() {
		if r := recover(); r != nil {
			if b, ok := r.(buildBound); ok {
				f, err = nil, fmt.Errorf("request schema: %w", b.err)
				return
			}
			f, err = nil, fmt.Errorf("request schema: the form builder failed on it (%v)", r)
		}
	}()
	f = &Form{Schema: comp.Declared(), Draft: comp.Draft(), doc: doc, comp: comp, building: true}
	f.Root = f.newNode("", doc.Root(), nil, true)
	f.building = false
	f.Root.Collapsed = false
	if f.Root.Kind == KindJSON && f.Root.Text == "" {
		f.Root.Text = "{}"
	}
	f.refreshAll()
	if v, _ := f.Value(); v != nil {
		if _, err := schema.ValidateForm(comp.Source(), v); schema.IsBound(err) {
			return nil, fmt.Errorf("checking its defaults: %w", err)
		}
	}
	return f, nil
}

// Compiled returns the compiled request schema the form reads its
// conditionals and unions with: the handle package schema shares with
// every reader of the same schema bytes (the runner's Plan among them), so
// the form never compiles a schema again; nil for a form built without a
// schema.
func (f *Form) Compiled() *schema.Compiled { return f.comp }

// Raw reports whether the whole input is one JSON field (no schema, or a
// schema that says nothing about the shape).
func (f *Form) Raw() bool { return f.Root.Kind == KindJSON }

// Fields are the top-level fields of an object form (nil otherwise).
func (f *Form) Fields() []*Node {
	if f.Root.Kind != KindObject {
		return nil
	}
	return f.Root.Children
}

// Value builds the input from the tree and returns the problems the fields
// have on their own, by JSON pointer. What was typed is never dropped: text
// in a number field that is not a JSON number is sent as a JSON string
// (the schema then refuses its type at that field); only JSON text that
// does not parse, which cannot be encoded, is left out.
func (f *Form) Value() (json.RawMessage, map[string][]string) {
	probs := problemSink{}
	v, ok := f.value(f.Root, probs, "")
	if !ok {
		v = json.RawMessage("{}")
		if f.Root.Kind != KindObject && f.Root.Kind != KindJSON {
			v = json.RawMessage("null")
		}
	}
	return v, probs
}
