package inputs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMarkdownRemembered: the markdown choice is kept per module (an MCP
// server by its id) in one bounded file: set, cleared, the oldest
// forgotten past maxViewerModules; an oversized or broken file reads as
// nothing chosen, with the error, and is replaced by the next choice.
func TestMarkdownRemembered(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	if on, err := s.Markdown("fs"); on || err != nil {
		t.Fatalf("fresh store: %v %v", on, err)
	}
	if err := s.SetMarkdown("fs", true); err != nil {
		t.Fatal(err)
	}
	if on, _ := s.Markdown("fs"); !on {
		t.Error("fs not remembered")
	}
	if on, _ := s.Markdown("notes"); on {
		t.Error("notes remembered without a choice")
	}
	if err := s.SetMarkdown("fs", false); err != nil {
		t.Fatal(err)
	}
	if on, _ := s.Markdown("fs"); on {
		t.Error("fs still on after turning it off")
	}
	for i := range maxViewerModules + 1 {
		if err := s.SetMarkdown(fmt.Sprintf("m%d", i), true); err != nil {
			t.Fatal(err)
		}
	}
	if on, _ := s.Markdown("m0"); on {
		t.Error("the oldest module is not forgotten past the bound")
	}
	if on, _ := s.Markdown(fmt.Sprintf("m%d", maxViewerModules)); !on {
		t.Error("the newest module is forgotten")
	}
	p := filepath.Join(s.Dir, viewerFile)
	if err := os.WriteFile(p, []byte(`{"markdown":["fs"]`+strings.Repeat(" ", maxViewerBytes)+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if on, err := s.Markdown("fs"); on || err == nil {
		t.Errorf("oversized file: %v %v, want off with an error", on, err)
	}
	if err := s.SetMarkdown("fs", true); err != nil {
		t.Fatal(err)
	}
	if on, err := s.Markdown("fs"); !on || err != nil {
		t.Errorf("after replacing the oversized file: %v %v", on, err)
	}
	if (Store{}).SetMarkdown("fs", true) != nil {
		t.Error("a store with no directory should keep nothing, quietly")
	}
}
