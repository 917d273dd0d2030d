// Package cellwidth measures text in terminal cells as xterm and tmux
// draw it, the reference modbay lays out against. Both measure each code
// point with wcwidth; the grapheme-cluster width of
// github.com/charmbracelet/x/ansi agrees with them except where a
// grapheme extender is drawn as a cell of its own: the halfwidth
// katakana voiced and semi-voiced sound marks U+FF9E and U+FF9F (East
// Asian Width H), which extend the preceding kana in Unicode's grapheme
// rules (so "ｶﾞ" measures 1) yet take one cell each on screen (2).
package cellwidth
