package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderExitCodeFollowsWhatWasShown is this case: a CSV whose preamble is malformed shows its table, so render exits
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

// TestRenderStagedArtifactUsesItsType: `modbay render` of a staged file
// (no extension in the store) shows it as the media type it was staged
// under, not as application/octet-stream.
func TestRenderStagedArtifactUsesItsType(t *testing.T) {
	home := demo(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Staged heading\n\nSome *markdown* text.\n")
	}))
	defer srv.Close()
	input := fmt.Sprintf(`{"url":%q}`, srv.URL+"/doc.md")
	code, out, stderr := run(t, "--home", home, "invoke", "fetch", "fetch.url", "--input", input, "--yes", "--json")
	if code != ExitOK {
		t.Fatalf("invoke: exit %d\n%s%s", code, out, stderr)
	}
	var res struct {
		Artifacts []struct {
			Staged    string `json:"staged"`
			MediaType string `json:"media_type"`
		} `json:"artifacts"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Artifacts) != 1 {
		t.Fatalf("--json output: %v\n%s", err, out)
	}
	staged := res.Artifacts[0].Staged
	code, out, stderr = run(t, "render", staged, "--width", "60")
	if code != ExitOK {
		t.Fatalf("render staged: exit %d\n%s%s", code, out, stderr)
	}
	// Glamour's plain style keeps the markup but sets the document in its
	// two-cell margin; a download would show application/octet-stream.
	if !strings.Contains(out, "\n  # Staged heading") || strings.Contains(out, "octet-stream") {
		t.Errorf("not rendered as markdown:\n%s", out)
	}
}
