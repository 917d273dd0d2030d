package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderExitCodeFollowsWhatWasShown is the bug report's case (issue 8
// §5): a CSV whose preamble is malformed shows its table, so render exits
// 0 and reports the problem on stderr; 4 is kept for a file of which
// nothing could be shown (an image that does not decode).
func TestRenderExitCodeFollowsWhatWasShown(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "indicators.csv")
	os.WriteFile(csv, []byte("\"Data Source\",\"World Development Indicators\n\nCountry,Code,2020\nAruba,ABW,10.1\nChad,TCD,41.0\n"), 0o644)
	code, out, errOut := run(t, "render", csv, "--width", "60")
	if code != ExitOK {
		t.Fatalf("render of a table with a malformed preamble: exit %d, want %d\n%s%s", code, ExitOK, out, errOut)
	}
	if !strings.Contains(out, "Aruba") || !strings.Contains(out, "TCD") {
		t.Errorf("the table was not shown:\n%s", out)
	}
	if !strings.Contains(errOut, "indicators.csv") || !strings.Contains(errOut, "line") {
		t.Errorf("the problem is not on stderr: %q", errOut)
	}

	png := filepath.Join(dir, "broken.png")
	os.WriteFile(png, []byte("\x89PNG\r\n\x1a\nnot really a png"), 0o644)
	code, out, errOut = run(t, "render", png)
	if code != ExitHostVerdict {
		t.Fatalf("render of an image that does not decode: exit %d, want %d\n%s%s", code, ExitHostVerdict, out, errOut)
	}
}
