package viewer

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"modbay/render"
	"modbay/ui/common"
)

// TestMarkdownRendersStopWhenClosed: a closed viewer's chunk renders not
// yet started never run glamour, and a new generation's start leaves the
// old generation's queued renders unrun too.
func TestMarkdownRendersStopWhenClosed(t *testing.T) {
	com := common.New(false)
	src := []byte(strings.Repeat("## Section\n\n"+strings.Repeat("Some words to wrap. ", 60)+"\n\n", 60))
	in := loadInput{com: com, keys: DefaultKeyMap(), opts: render.Options{Width: 80}, w: 80, h: 24}
	m := newMarkdown(in, src)
	if len(m.chunks) < 3 {
		t.Fatalf("%d chunks, want several", len(m.chunks))
	}
	rendered := func(cmds []tea.Cmd) (n int) {
		for _, c := range cmds {
			if msg, ok := c().(mdChunkMsg); ok && msg.lines != nil {
				n++
			}
		}
		return n
	}
	first := flatten(m.Start())
	if len(first) == 0 {
		t.Fatal("Start gave no renders")
	}
	second := flatten(m.Start()) // a resize: a new generation
	if n := rendered(first); n != 0 {
		t.Errorf("%d renders of the old generation ran", n)
	}
	m.Close()
	if n := rendered(second); n != 0 {
		t.Errorf("%d renders ran after Close", n)
	}
	third := flatten(newMarkdown(in, src).Start())
	if n := rendered(third); n != len(third) {
		t.Errorf("an open viewer rendered %d of %d chunks", n, len(third))
	}
}

// flatten is the Cmds of a tea.Batch, not run.
func flatten(cmd tea.Cmd) []tea.Cmd {
	if b, ok := cmd().(tea.BatchMsg); ok {
		return b
	}
	panic("not a batch")
}
