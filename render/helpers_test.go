package render

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"modbay/internal/testcorpus"
)

// fuzzSeedBytes is how much of each corpus file seeds a fuzz target: enough
// for a header and a few records, small enough that minimizing an interesting
// input takes seconds, not the fuzzer's whole minute.
const fuzzSeedBytes = 1024

// sweepWidths are the terminal widths every corpus file is rendered at.
var sweepWidths = []int{40, 80, 120}

// corpusFiles returns the paths of the corpus files in dir (a subdirectory of
// the shared corpus, found by testcorpus), skipping the SOURCES.tsv
// provenance list. Without the corpus it skips tb (fails it under CI).
func corpusFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	return listCorpus(tb, testcorpus.Dir(tb, dir))
}

// corpusSeeds is corpusFiles for fuzz seeds: without the corpus (and outside
// CI) it returns nil, and the fuzz target runs on its own seeds.
func corpusSeeds(tb testing.TB, dir string) []string {
	tb.Helper()
	if d, ok := testcorpus.Lookup(tb, dir); ok {
		return listCorpus(tb, d)
	}
	return nil
}

// listCorpus lists the files of corpus directory dir but SOURCES.tsv; an
// empty directory fails tb.
func listCorpus(tb testing.TB, dir string) []string {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, p := range paths {
		if filepath.Base(p) != "SOURCES.tsv" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		tb.Fatalf("no corpus files in %s", dir)
	}
	return out
}

// readCorpus reads one corpus file by its slash-separated name relative to
// the corpus; without the corpus it skips tb (fails it under CI).
func readCorpus(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(testcorpus.Dir(tb, filepath.FromSlash(name)))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// readFile reads a file by path.
func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// inertProblem returns why s is not inert plain text (valid UTF-8 with no
// control character but '\n', and '\t' when tabs is set; no C1, DEL or bidi
// control), or "" when it is.
func inertProblem(s string, tabs bool) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for i, r := range s {
		switch {
		case r == '\n', r == '\t' && tabs:
		case r < 0x20 || r == 0x7F:
			return "control " + quoteRune(r) + " at byte " + itoa(i)
		case r >= 0x80 && r <= 0x9F:
			return "C1 control " + quoteRune(r) + " at byte " + itoa(i)
		case isBidiControl(r):
			return "bidi control " + quoteRune(r) + " at byte " + itoa(i)
		}
	}
	return ""
}

// styledProblem returns why colored output s carries an escape sequence other
// than the styling this package and glamour add (SGR "CSI ... m" and OSC 8
// hyperlinks), or "" when it carries none.
func styledProblem(s string) string {
	var state byte
	for len(s) > 0 {
		seq, _, n, newState := ansi.DecodeSequence(s, state, nil)
		state = newState
		if n <= 0 {
			return "decoder made no progress"
		}
		isControl := seq != "" && (seq[0] < 0x20 || seq[0] == 0x7F)
		switch {
		case !isControl, seq == "\n":
		case strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m"):
		case strings.HasPrefix(seq, "\x1b]8;"):
		default:
			return "unexpected sequence " + quote(seq)
		}
		s = s[n:]
	}
	return ""
}

// checkWidth fails when a line of out is wider than width cells.
func checkWidth(t *testing.T, out string, width int) {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		if w := ansi.StringWidth(line); w > width {
			t.Errorf("line %d is %d cells wide, max %d: %q", i+1, w, width, ansi.Strip(line))
			return
		}
	}
}

func quoteRune(r rune) string { return quote(string(r)) }

// itoa and quote keep the helpers above short.
func itoa(i int) string     { return strconv.Itoa(i) }
func quote(s string) string { return strconv.Quote(s) }

// checkOutput fails unless out is safe for the terminal: with noColor it must
// be inert plain text (no ESC at all); otherwise its only escape sequences may
// be SGR styling and OSC 8 links, and its text must be inert. Every line must
// be at most width cells.
func checkOutput(t *testing.T, out string, width int, noColor bool) {
	t.Helper()
	if noColor {
		if p := inertProblem(out, false); p != "" {
			t.Errorf("NoColor output is not inert: %s", p)
		}
	} else {
		if p := styledProblem(out); p != "" {
			t.Errorf("colored output: %s", p)
		}
		if p := inertProblem(ansi.Strip(out), false); p != "" {
			t.Errorf("colored output text is not inert: %s", p)
		}
	}
	checkWidth(t, out, width)
}

// stripForTest removes escape sequences so tests can look at the text.
func stripForTest(s string) string { return ansi.Strip(s) }
