package jsonptr

import "strings"

var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// Escape makes a name one reference token: "~" is "~0", "/" is "~1".
func Escape(name string) string { return escaper.Replace(name) }

// Unescape is the name a reference token stands for: "~1" is "/", "~0" is "~".
func Unescape(tok string) string { return unescaper.Replace(tok) }

// Join renders names as a pointer: "" for none, "/a~1b/0" for ["a/b", "0"].
func Join(names []string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteByte('/')
		b.WriteString(escaper.Replace(n))
	}
	return b.String()
}
