package form

// ---- defaults ------------------------------------------

// DefaultRule is the one rule the form applies to a schema's "default",
// as a view states it (the form screen's full help, the README):
// a required field starts filled with its default, which is sent unless
// changed and is shown marked as a default, not as typed; an optional
// field only shows its default, sends nothing unless the person sets it,
// and the module then applies its own default. Examples are never values:
// they show in an empty field after "e.g." and are never sent.
const DefaultRule = "Defaults: a required field starts with its default, marked (default, sent), and sends it unless changed; " +
	"an optional field shows its default (not sent) and sends nothing unless set, so the module applies its own. " +
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
	if !n.Defaulted || n.ReadOnly {
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
