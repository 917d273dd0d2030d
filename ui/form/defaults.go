package form

import "encoding/json"

// ---- defaults ------------------------------------------

// DefaultRule is the one rule the form applies to a schema's "default",
// as a view states it (the form screen's full help, the README):
// a required field starts filled with its default, which is sent unless
// changed and is shown marked as a default, not as typed; an optional
// field only shows its default, sends nothing unless the person sets it,
// and the module then applies its own default. A read-only field is sent
// only when required, with its const or default; a required one with
// neither is a problem the form cannot solve (MsgReadOnlyRequired), which
// JSON mode can. Examples are never values:
// they show in an empty field after "e.g." and are never sent.
const DefaultRule = "Defaults: a required field starts with its default, marked (default, sent), and sends it unless changed; " +
	"an optional field shows its default (not sent) and sends nothing unless set, so the module applies its own. " +
	"A read-only field cannot be edited: a required one is sent with its default (read-only, sent), one without a default " +
	"cannot be filled in the form (JSON mode can), an optional one is not sent. " +
	"Examples show after \"e.g.\" and are never sent."

// markDefaulted marks n and everything under it as holding the default.
func markDefaulted(n *Node) {
	n.Defaulted = true
	for _, c := range n.Children {
		markDefaulted(c)
	}
	for _, e := range n.Entries {
		markDefaulted(e)
	}
}

// untouch clears the default mark of n and of the nodes that hold it: an
// edit inside a defaulted section makes the section typed, not default.
func untouch(n *Node) {
	for p := n; p != nil; p = p.Parent {
		p.Defaulted = false
	}
}

// DefaultSent reports whether n is sent with its schema's default, as
// the form was built and untouched since (Node.Defaulted): a view marks it
// "(default)".
func (f *Form) DefaultSent(n *Node) bool {
	if n.ReadOnly {
		_, isConst := n.Schema.ConstValue()
		return n.Parent != nil && n.Required && n.Held == nil && !isConst && n.Schema.Default != nil
	}
	if !n.Defaulted {
		return false
	}
	_, ok := f.value(n, nil, "")
	return ok
}

// DefaultNotSent returns, for an optional field whose schema has a
// default and that is left out of the input, that default as text (a
// string unquoted, other values as compact JSON), for a view to show as
// the module's default; "" otherwise (no default, a value set, a required
// or read-only field).
func (f *Form) DefaultNotSent(n *Node) string {
	if n.Required || n.ReadOnly || n.Schema == nil || n.Schema.Default == nil {
		return ""
	}
	if _, ok := f.value(n, nil, ""); ok {
		return ""
	}
	return label(n.Schema.Default)
}

// readOnlyValue is what a required read-only field sends: its value as
// loaded (Held), else its const, else its default; nil when it has none.
func (n *Node) readOnlyValue() json.RawMessage {
	if n.Held != nil {
		return n.Held
	}
	if cv, ok := n.Schema.ConstValue(); ok {
		return cv
	}
	return n.Schema.Default
}

// ReadOnlySent reports whether read-only field n is sent (a value loaded
// into it, or required with a value to send): a view says "read-only, sent" rather than "not sent".
func (f *Form) ReadOnlySent(n *Node) bool {
	return n.ReadOnly && n.Parent != nil && (n.Held != nil || (n.Required && n.readOnlyValue() != nil))
}
