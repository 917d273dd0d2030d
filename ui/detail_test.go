package ui

import (
	"strings"
	"testing"
)

// TestDetailLabelAsWideAsColumn: a label as wide as the label column
// ("URI template") is parted from its value by a space.
func TestDetailLabelAsWideAsColumn(t *testing.T) {
	m, _ := newTest(t, nil, 100, 30)
	b := detailBuilder{com: m.com, w: 60}
	b.kv("URI template", "note://{id}")
	b.kv("Capability", "x")
	out := strings.Join(b.lines, "\n")
	if !strings.Contains(out, "URI template note://{id}") || !strings.Contains(out, "Capability  x") {
		t.Errorf("labels run into values:\n%q", out)
	}
}
