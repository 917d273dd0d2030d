// Package jsonptr escapes and unescapes the reference tokens of RFC 6901
// JSON pointers ("/a~1b/0" is the tokens "a/b" and "0").
package jsonptr
