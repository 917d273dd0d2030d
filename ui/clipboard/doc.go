// Package clipboard puts text on the clipboard the way the terminal can
// take it and says which way was used: inside tmux through `tmux
// load-buffer -w -` (the text on stdin, never a shell or an argument),
// elsewhere as OSC 52, which no terminal acknowledges, so the note says
// "sent", never "arrived".
package clipboard
