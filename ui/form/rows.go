package form

import (
	"strconv"
	"strings"
)

// ---- rows ----------------------------------------------------------------

// Row is one visible line-item of the form: a node at a depth.
type Row struct {
	Node  *Node
	Depth int
}

// Rows lists the visible nodes in order: sections' fields under their
// headers unless collapsed; a union's chosen variant under its picker (an
// object variant's fields directly); an entry's value under its key.
func (f *Form) Rows() []Row {
	var rows []Row
	var walk func(n *Node, depth int, header bool)
	fields := func(n *Node, depth int) {
		for _, c := range n.Children {
			walk(c, depth, true)
		}
		for _, e := range n.Entries {
			walk(e, depth, true)
		}
	}
	walk = func(n *Node, depth int, header bool) {
		if header {
			rows = append(rows, Row{Node: n, Depth: depth})
		}
		if n.Raw || n.Null {
			return
		}
		inner := depth
		if header {
			inner = depth + 1
		}
		switch n.Kind {
		case KindObject:
			if !n.Collapsed {
				fields(n, inner)
			}
		case KindArray:
			if !n.Collapsed {
				for _, c := range n.Children {
					walk(c, inner, true)
				}
			}
		case KindEntry:
			walk(n.Children[0], inner, true)
		case KindUnion:
			if len(n.Children) > 0 {
				c := n.Children[0]
				switch {
				case c.Kind == KindObject:
					fields(c, inner)
				case c.Kind == KindNull:
				default:
					walk(c, inner, true)
				}
			}
		}
	}
	if f.Root.Kind == KindObject {
		fields(f.Root, 0)
		if len(rows) == 0 {
			rows = append(rows, Row{Node: f.Root})
		}
	} else {
		walk(f.Root, 0, true)
	}
	return rows
}

// Find returns the deepest node at JSON pointer ptr and the part of ptr
// below it ("" when the node is exactly there).
func (f *Form) Find(ptr string) (*Node, string) {
	n := f.Root
	if ptr == "" || !strings.HasPrefix(ptr, "/") {
		return n, ptr
	}
	toks := strings.Split(ptr[1:], "/")
	for i, tok := range toks {
		n = inner(n)
		name := unescape(tok)
		var next *Node
		switch n.Kind {
		case KindObject:
			for _, c := range n.Children {
				if c.Name == name {
					next = c
				}
			}
			for _, e := range n.Entries {
				if e.Key == name {
					next = e
				}
			}
		case KindArray:
			if k, err := strconv.Atoi(tok); err == nil && k >= 0 && k < len(n.Children) {
				next = n.Children[k]
			}
		}
		if next == nil {
			return n, "/" + strings.Join(toks[i:], "/")
		}
		n = next
	}
	return n, ""
}

// inner is the node that holds n's fields: a union's chosen variant or an
// entry's value, followed down.
func inner(n *Node) *Node {
	for {
		switch {
		case n.Kind == KindUnion && len(n.Children) > 0:
			n = n.Children[0]
		case n.Kind == KindEntry:
			n = n.Children[0]
		default:
			return n
		}
	}
}
