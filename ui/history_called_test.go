package ui

import (
	"strings"
	"testing"

	"modbay/ui/styles"
)

// A gateway call refused for naming no tool served has no module: its
// rows name the tool (sanitized) instead of " › NAME".
func TestCalledTextOfARefusedUnknownTool(t *testing.T) {
	if got := calledText("notes", "notes.report"); got != "notes › notes.report" {
		t.Errorf("module: %q", got)
	}
	if got := calledText("", "no_such\x1b[2J_tool"); strings.ContainsRune(got, 0x1b) || !strings.HasPrefix(got, "tool no_such") || !strings.HasSuffix(got, "_tool (not served)") {
		t.Errorf("no module: %q", got)
	}
	st := styles.NewWith(true, true, nil)
	if got := calledTitle(st, "", "junk"); !strings.Contains(got, "tool junk") || !strings.HasSuffix(got, " (not served)") || strings.Contains(got, "›") {
		t.Errorf("title: %q", got)
	}
}
