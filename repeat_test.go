package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repeatEnv is an environment with another HOME and no MODBAY_HOME, and
// bin's directory first on PATH: a shell where a printed line is pasted.
func repeatEnv(t *testing.T, bin string) []string {
	t.Helper()
	env := []string{"HOME=" + t.TempDir(), "PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH"), "NO_COLOR=1"}
	if v := os.Getenv("GOCACHE"); v != "" {
		env = append(env, "GOCACHE="+v)
	}
	return env
}

// runPrinted runs line with sh from another directory in repeatEnv, and
// fails the test unless it exits 0.
func runPrinted(t *testing.T, bin, line string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = t.TempDir()
	cmd.Env = repeatEnv(t, bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the printed line %q failed as printed: %v\n%s", line, err, out)
	}
	return string(out)
}

// historyRuns are the runs recorded in home, newest first.
func historyRuns(t *testing.T, bin, home string) []map[string]any {
	t.Helper()
	out, err := exec.Command(bin, "--home", home, "history", "--json").Output()
	if err != nil {
		t.Fatalf("history --json: %v", err)
	}
	var runs []map[string]any
	if err := json.Unmarshal(out, &runs); err != nil {
		t.Fatalf("history --json: %v\n%s", err, out)
	}
	return runs
}

// lineAfter is the text after prefix on the first line of out that has it.
func lineAfter(t *testing.T, out, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if _, rest, ok := strings.Cut(l, prefix); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("no line with %q in:\n%s", prefix, out)
	return ""
}

// lineBelow is the line (trimmed) below the first line of out that is title.
func lineBelow(t *testing.T, out, title string) string {
	t.Helper()
	ls := strings.Split(out, "\n")
	for i, l := range ls {
		if strings.TrimSpace(l) == title && i+1 < len(ls) {
			return strings.TrimSpace(ls[i+1])
		}
	}
	t.Fatalf("no line %q in:\n%s", title, out)
	return ""
}

// TestPrintedLinesRepeat: the lines modbay prints to be run again (invoke
// --trace's repeat line, history show's, modbay new's hints) carry the
// home, the workspace and the module's path: run as printed from another
// directory with another HOME, they act on the same home and workspace.
func TestPrintedLinesRepeat(t *testing.T) {
	bin := buildModbay(t)
	home, ws := filepath.Join(t.TempDir(), "home"), t.TempDir()
	out, err := exec.Command(bin, "--home", home, "--workspace", ws, "invoke", "notes", "notes.report", "--input", "{}", "--trace").CombinedOutput()
	if err != nil {
		t.Fatalf("invoke --trace: %v\n%s", err, out)
	}
	runPrinted(t, bin, lineBelow(t, string(out), "repeat with modbay:"))
	runs := historyRuns(t, bin, home)
	if len(runs) != 2 {
		t.Fatalf("the trace's repeat line did not run in the home: %d runs recorded, want 2", len(runs))
	}
	show, err := exec.Command(bin, "--home", home, "history", "show", runs[0]["run_id"].(string)).CombinedOutput()
	if err != nil {
		t.Fatalf("history show: %v\n%s", err, show)
	}
	runPrinted(t, bin, lineAfter(t, string(show), "repeat "))
	runs = historyRuns(t, bin, home)
	if len(runs) != 3 {
		t.Fatalf("history show's repeat line did not run in the home: %d runs recorded, want 3", len(runs))
	}
	show, _ = exec.Command(bin, "--home", home, "history", "show", runs[0]["run_id"].(string)).CombinedOutput()
	if got := lineAfter(t, string(show), "root      workspace rw"); got != ws {
		t.Errorf("the repeated run's workspace is %q, want %q", got, ws)
	}

	// modbay new's hints name the module by its absolute path.
	mod := filepath.Join(t.TempDir(), "hello")
	newOut, err := exec.Command(bin, "--home", home, "new", "hello", "--lang", "sh", "--dir", mod).CombinedOutput()
	if err != nil {
		t.Fatalf("new: %v\n%s", err, newOut)
	}
	check, _, _ := strings.Cut(lineAfter(t, string(newOut), "check it:"), "   (")
	runPrinted(t, bin, check)
	runPrinted(t, bin, lineAfter(t, string(newOut), "run it:"))
	runs = historyRuns(t, bin, home)
	if len(runs) != 4 || runs[0]["module"] != "hello" {
		t.Fatalf("modbay new's run line did not run the new module in the home: %v", runs[0])
	}
}
