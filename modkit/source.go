package modkit

import _ "embed"

// Source is modkit.go itself: `modbay new --lang go` writes it beside a
// module as its own package (modkit/modkit.go), so an author outside this
// repository needs nothing but the standard library.
//
//go:embed modkit.go
var Source string
