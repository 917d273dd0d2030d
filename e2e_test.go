package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The end-to-end flows drive the real modbay binary in a real terminal
// (tmux, 80×24) on the built-in examples, by keyboard only, as a person on
// a fresh machine would after `go run .`.

// screenWait bounds how long a flow waits for one screen: generous, since
// CI machines are slow; a flow that works finishes in a few seconds.
const screenWait = 20 * time.Second

// term is one tmux session running the modbay binary.
type term struct {
	t       *testing.T
	session string
}

// buildModbay builds the binary once per test into a temp dir.
func buildModbay(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "modbay")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// tmuxSocket is a tmux server private to this test process (tmux -L):
// the tests never touch the person's own server, its sessions or its
// paste buffers.
var tmuxSocket = fmt.Sprintf("modbay-e2e-%d", os.Getpid())

// tmuxCommand is tmux args on the tests' private server.
func tmuxCommand(args ...string) *exec.Cmd {
	return exec.Command("tmux", append([]string{"-L", tmuxSocket}, args...)...)
}

func needTmux(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is missing in CI: .ci/run installs it")
		}
		t.Skip("tmux not installed")
	}
}

// start opens the cockpit in a detached 80×24 tmux session with home.
func start(t *testing.T, bin, home string) *term {
	t.Helper()
	return startCmd(t, fmt.Sprintf("MODBAY_HOME=%s NO_COLOR=1 %s", home, bin))
}

// startHeld opens the cockpit with home and the environment env
// ("NAME=value …") in a detached 80×24 tmux session that stays open after
// modbay exits, showing what it printed then and "[exited N]".
func startHeld(t *testing.T, bin, home, env string) *term {
	t.Helper()
	return startCmd(t, fmt.Sprintf(`env MODBAY_HOME=%s %s %s; echo "[exited $?]"; sleep 60`, home, env, bin))
}

// startCmd runs shell command line in a detached 80×24 tmux session.
func startCmd(t *testing.T, line string) *term {
	t.Helper()
	session := fmt.Sprintf("modbay-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())
	cmd := tmuxCommand("new-session", "-d", "-s", session, "-x", "80", "-y", "24", line)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	tm := &term{t: t, session: session}
	t.Cleanup(func() { tmuxCommand("kill-session", "-t", session).Run() })
	return tm
}

// screen returns the visible pane.
func (tm *term) screen() string {
	out, _ := tmuxCommand("capture-pane", "-p", "-t", tm.session).Output()
	return string(out)
}

// waitFor polls the pane until it shows every one of want.
func (tm *term) waitFor(want ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(screenWait)
	for {
		s := tm.screen()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("screen never showed %q; it shows:\n%s", want, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitDiscovered waits until discovery has finished (the list no longer
// says "describing") and shows every one of want: keys sent earlier would
// move a cursor among modules still arriving.
func (tm *term) waitDiscovered(want ...string) {
	tm.t.Helper()
	want = append(want, "4 modules")
	deadline := time.Now().Add(screenWait)
	for {
		s := tm.waitFor(want...)
		if !strings.Contains(s, "describing") {
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("discovery never finished:\n%s", s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitSelected polls the pane until the row under the cursor ("›") shows
// name.
func (tm *term) waitSelected(name string) {
	tm.t.Helper()
	deadline := time.Now().Add(screenWait)
	for {
		s := tm.screen()
		for _, line := range strings.Split(s, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "›") && strings.Contains(line, name) {
				return
			}
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the cursor never reached %q; the screen shows:\n%s", name, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// keys sends tmux key names one at a time, with a short pause so an Escape
// is never read as alt+<next key>.
func (tm *term) keys(keys ...string) {
	for _, k := range keys {
		tmuxCommand("send-keys", "-t", tm.session, k).Run()
		time.Sleep(150 * time.Millisecond)
	}
}

// typeText types literal text.
func (tm *term) typeText(s string) {
	tmuxCommand("send-keys", "-l", "-t", tm.session, s).Run()
	time.Sleep(150 * time.Millisecond)
}

// moduleProcs lists live processes running bin as an example module.
func moduleProcs(bin string) []string {
	var out []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00")
		if len(args) > 1 && args[0] == bin && args[1] == "example-module" {
			out = append(out, d.Name()+" "+strings.Join(args, " "))
		}
	}
	return out
}

func assertNoModuleProcs(t *testing.T, bin string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := moduleProcs(bin)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("module processes remain: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestCockpitNotesToMarkdown: list → notes → Summarize notes → form →
// submit → result → the markdown report, by keyboard.
func TestCockpitNotesToMarkdown(t *testing.T) {
	needTmux(t)
	bin := buildModbay(t)
	home := t.TempDir()
	tm := start(t, bin, home)
	tm.waitDiscovered("Showing the built-in examples", "Workspace notes", "needs setup")
	tm.keys("j")
	tm.waitSelected("Workspace notes")
	tm.keys("Enter")
	tm.waitFor("Summarize notes", "notes.report")
	tm.keys("Enter")
	tm.waitFor("pattern", "max_files")
	tm.keys("C-s")
	tm.waitFor("Notes report", "verified")
	tm.keys("Enter")
	s := tm.waitFor("first heading")
	if !strings.Contains(s, "welcome.md") {
		t.Fatalf("the markdown report does not list the seeded notes:\n%s", s)
	}
	// The artifact really is in the home's content-addressed store.
	staged, _ := filepath.Glob(filepath.Join(home, "artifacts", "sha256", "*", "*"))
	if len(staged) < 3 {
		t.Fatalf("staged artifacts: %v", staged)
	}
	// y copies the report's path through tmux itself (a bare OSC 52 is
	// dropped under tmux's default set-clipboard external), and says so.
	tm.keys("y")
	tm.waitFor("Copied to the tmux buffer")
	buf, err := tmuxCommand("show-buffer").Output()
	if err != nil {
		t.Fatalf("tmux show-buffer: %v", err)
	}
	if p := string(buf); !strings.HasPrefix(p, filepath.Join(home, "artifacts", "sha256")+"/") || !slices.Contains(staged, p) {
		t.Fatalf("the tmux buffer holds %q, want one of the staged paths %v", p, staged)
	}
	tm.keys("Escape", "Escape", "Escape", "Escape", "q")
	assertNoModuleProcs(t, bin)
}

// TestCockpitFetchNeedsApproval: the network example asks before running;
// keys typed within the grace period do not approve; `a` then runs it
// against a loopback server and the fetched markdown opens in the viewer.
func TestCockpitFetchNeedsApproval(t *testing.T) {
	needTmux(t)
	// hits is written by the server goroutine and read by the test.
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Hello from loopback\n\nFetched **for real**.\n")
	}))
	defer srv.Close()
	bin := buildModbay(t)
	tm := start(t, bin, t.TempDir())
	tm.waitDiscovered("Web fetch")
	tm.keys("Enter")
	tm.waitFor("Fetch a URL")
	tm.keys("Enter")
	tm.waitFor("url")
	tm.typeText(srv.URL + "/doc.md")
	tm.keys("C-s", "a") // the `a` lands inside the grace period: ignored
	// The dialog shows the URL it would fetch.
	tm.waitFor("Approve this call?", "reaches the network", "unknown", `url: "`+srv.URL+`/doc.md"`)
	time.Sleep(300 * time.Millisecond)
	if hits.Load() != 0 {
		t.Fatal("the module ran before approval")
	}
	time.Sleep(300 * time.Millisecond)
	tm.keys("a")
	tm.waitFor("verified")
	if n := hits.Load(); n != 1 {
		t.Fatalf("want one fetch after approval, got %d", n)
	}
	tm.keys("Enter")
	tm.waitFor("Hello from loopback")
	tm.keys("Escape", "Escape", "Escape", "Escape", "Escape", "q")
	assertNoModuleProcs(t, bin)
}

// TestCockpitCancelKillsTheRun: ctrl+c during a long-running job cancels
// it; no module process remains, and the cockpit keeps running.
func TestCockpitCancelKillsTheRun(t *testing.T) {
	needTmux(t)
	bin := buildModbay(t)
	tm := start(t, bin, t.TempDir())
	tm.waitDiscovered("Render farm")
	tm.keys("j", "j")
	tm.waitSelected("Render farm")
	tm.keys("Enter")
	tm.waitFor("farm.render")
	tm.keys("Enter")
	tm.waitFor("frames")
	tm.keys("C-s")
	tm.waitFor("running")
	tm.waitFor("ctrl+c stops polling")
	tm.keys("C-c")
	// The job lives in the module: ctrl+c stops the polling, and the
	// result says the job goes on rather than that it was cancelled.
	tm.waitFor("cancelled", "polling stopped; job", "in the module")
	assertNoModuleProcs(t, bin)
	if s := tm.screen(); !strings.Contains(s, "modbay") {
		t.Fatalf("the cockpit quit instead of cancelling the run:\n%s", s)
	}
}

// TestCockpitCtrlCKeepsTheDraft: ctrl+c in a form with typed input keeps
// it and says a second ctrl+c quits; the second quits and modbay says the
// draft is kept; the next cockpit on the home offers it to ctrl+l.
func TestCockpitCtrlCKeepsTheDraft(t *testing.T) {
	needTmux(t)
	bin := buildModbay(t)
	home := t.TempDir()
	tm := startHeld(t, bin, home, "NO_COLOR=1")
	tm.waitDiscovered("Web fetch")
	tm.keys("Enter")
	tm.waitFor("Fetch a URL")
	tm.keys("Enter")
	tm.waitFor("url")
	tm.typeText("https://example.invalid/kept-draft")
	tm.keys("C-c")
	tm.waitFor("ctrl+c again quits; the draft is kept")
	tm.keys("C-c")
	tm.waitFor("1 draft kept: ctrl+l in its form recalls it.", "[exited 0]")

	tm = start(t, bin, home)
	tm.waitDiscovered("Web fetch")
	tm.keys("Enter")
	tm.waitFor("Fetch a URL")
	tm.keys("Enter")
	tm.waitFor("kept draft available")
	tm.keys("C-l")
	tm.waitFor("example.invalid/kept-draft")
	tm.keys("Escape", "Escape", "q")
}

// TestCockpitVT100HasNoColour: under TERM=vt100 the cockpit sends no
// colour, as modbay render does; with a colour terminal it does.
func TestCockpitVT100HasNoColour(t *testing.T) {
	needTmux(t)
	bin := buildModbay(t)
	colours := func(env string) string {
		tm := startHeld(t, bin, t.TempDir(), env)
		tm.waitDiscovered("Web fetch")
		out, _ := tmuxCommand("capture-pane", "-p", "-e", "-t", tm.session).Output()
		tm.keys("q")
		var found []string
		for _, sgr := range regexp.MustCompile(`\x1b\[([0-9;]*)m`).FindAllStringSubmatch(string(out), -1) {
			for _, p := range strings.Split(sgr[1], ";") {
				// 39 and 49 reset to the default colours.
				if n, err := strconv.Atoi(p); err == nil && n != 39 && n != 49 && (n >= 30 && n <= 48 || n >= 90 && n <= 107) {
					found = append(found, sgr[0])
				}
			}
		}
		return strings.Join(found, " ")
	}
	if c := colours("TERM=xterm-256color"); c == "" {
		t.Fatal("no colour under xterm-256color either: the check sees nothing")
	}
	if c := colours("TERM=vt100"); c != "" {
		t.Fatalf("colour codes under TERM=vt100: %q", c)
	}
}

// TestCockpitVT100DrawsASCII: a vt100 has no UTF-8, so under TERM=vt100
// the cockpit draws only ASCII even in a UTF-8 locale (borders, the
// cursor, ellipses, bullets), on the list, its detail and the help; an
// xterm in the same locale gets the Unicode glyphs.
func TestCockpitVT100DrawsASCII(t *testing.T) {
	needTmux(t)
	bin := buildModbay(t)
	nonASCII := func(env string) string {
		tm := startHeld(t, bin, t.TempDir(), env+" LANG=en_US.UTF-8 LC_ALL=en_US.UTF-8")
		tm.waitDiscovered("Web fetch")
		var found []rune
		for _, keys := range [][]string{nil, {"j"}, {"?"}} {
			tm.keys(keys...)
			time.Sleep(200 * time.Millisecond)
			for _, r := range tm.screen() {
				if r > 0x7f {
					found = append(found, r)
				}
			}
		}
		tm.keys("Escape", "q")
		return string(found)
	}
	if s := nonASCII("TERM=xterm-256color"); s == "" {
		t.Fatal("no Unicode glyph under xterm-256color either: the check sees nothing")
	}
	if s := nonASCII("TERM=vt100"); s != "" {
		t.Fatalf("non-ASCII glyphs under TERM=vt100: %q", s)
	}
}

// TestCockpitActivityAndRepeatLine: A opens the activity view with the
// run just made; the history's c copies the line that repeats it, which,
// run as copied from another directory with another HOME, runs again in
// the same home and workspace.
func TestCockpitActivityAndRepeatLine(t *testing.T) {
	needTmux(t)
	bin := buildModbay(t)
	home, ws := filepath.Join(t.TempDir(), "home"), t.TempDir()
	tm := startCmd(t, fmt.Sprintf("NO_COLOR=1 %s --home %s --workspace %s", bin, home, ws))
	tm.waitDiscovered("Workspace notes")
	tm.keys("j")
	tm.waitSelected("Workspace notes")
	tm.keys("Enter")
	tm.waitFor("Summarize notes", "notes.report")
	tm.keys("Enter")
	tm.waitFor("pattern", "max_files")
	tm.keys("C-s")
	tm.waitFor("Notes report", "verified")
	tm.keys("Escape", "Escape", "Escape")
	tm.waitFor("Workspace notes", "4 modules")
	tm.keys("A")
	tm.waitFor("activity", "1 finished in the last", "notes.report")
	tm.keys("Escape", "H")
	tm.waitFor("1 run recorded")
	tm.keys("c")
	tm.waitFor("Copied")
	buf, err := tmuxCommand("show-buffer").Output()
	if err != nil {
		t.Fatalf("tmux show-buffer: %v", err)
	}
	line := string(buf)
	if !strings.Contains(line, "--home "+home) || !strings.Contains(line, "--workspace "+ws) {
		t.Fatalf("the copied line %q does not name the home and the workspace", line)
	}
	runPrinted(t, bin, line)
	if runs := historyRuns(t, bin, home); len(runs) != 2 {
		t.Fatalf("the copied line did not run in the cockpit's home: %d runs", len(runs))
	}
	tm.keys("Escape", "q")
}

// TestCockpitApprovedRepeatLineAsPrinted: the history's c on a run that
// needed approval copies a line without --yes and says so; run as
// printed it stops at the approval (exit 3, naming --yes) and runs
// nothing; with --yes added it repeats the run.
func TestCockpitApprovedRepeatLineAsPrinted(t *testing.T) {
	needTmux(t)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Fetched\n")
	}))
	defer srv.Close()
	bin := buildModbay(t)
	home := filepath.Join(t.TempDir(), "home")
	tm := startCmd(t, fmt.Sprintf("NO_COLOR=1 %s --home %s", bin, home))
	tm.waitDiscovered("Web fetch")
	tm.keys("Enter")
	tm.waitFor("Fetch a URL")
	tm.keys("Enter")
	tm.waitFor("url")
	tm.typeText(srv.URL + "/doc.md")
	tm.keys("C-s")
	tm.waitFor("Approve this call?")
	time.Sleep(600 * time.Millisecond) // past the grace period
	tm.keys("a")
	tm.waitFor("verified")
	// Back to the module list one screen at a time (result, form,
	// capabilities): escapes sent together can be read as one alt key.
	for i := 0; i < 5 && !strings.Contains(tm.screen(), "4 modules"); i++ {
		tm.keys("Escape")
		time.Sleep(400 * time.Millisecond)
	}
	tm.waitFor("Web fetch", "4 modules")
	tm.keys("H")
	tm.waitFor("1 run recorded")
	tm.keys("c")
	tm.waitFor("needed approval")
	buf, err := tmuxCommand("show-buffer").Output()
	if err != nil {
		t.Fatalf("tmux show-buffer: %v", err)
	}
	line := string(buf)
	if strings.Contains(line, "--yes") {
		t.Fatalf("the copied line %q carries an approval", line)
	}
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env = t.TempDir(), repeatEnv(t, bin)
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 3 || !strings.Contains(string(out), "--yes") {
		t.Fatalf("the line as printed: exit %d (%v), want 3 naming --yes:\n%s", code, err, out)
	}
	if n := hits.Load(); n != 1 {
		t.Fatalf("the line as printed fetched: %d fetches, want 1", n)
	}
	runPrinted(t, bin, line+" --yes")
	if n := hits.Load(); n != 2 {
		t.Fatalf("the line with --yes did not repeat the fetch: %d fetches, want 2", n)
	}
	runs := historyRuns(t, bin, home)
	show, _ := exec.Command(bin, "--home", home, "history", "show", runs[len(runs)-1]["run_id"].(string)).CombinedOutput()
	if !strings.Contains(string(show), "needed approval") || !strings.Contains(string(show), "add --yes") {
		t.Fatalf("history show does not say the line stops at the approval:\n%s", show)
	}
	tm.keys("Escape", "q")
}

// TestCockpitPagerOpensASanitizedCopy: O on a result's artifact and in
// its viewer runs $PAGER on a 0600 copy under the home's tmp, with the
// cockpit suspended; the copy holds the report's text and is removed
// after, and the status line says what was opened and how.
func TestCockpitPagerOpensASanitizedCopy(t *testing.T) {
	needTmux(t)
	bin := buildModbay(t)
	home := t.TempDir()
	rec := filepath.Join(t.TempDir(), "record")
	pager := filepath.Join(t.TempDir(), "pager.sh")
	script := "#!/bin/sh\n{ echo \"arg=$1\"; stat -c 'mode=%a' \"$1\"; echo ---; cat \"$1\"; } >> " + rec + "\necho paged; sleep 1\n"
	if err := os.WriteFile(pager, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tm := startCmd(t, fmt.Sprintf("MODBAY_HOME=%s NO_COLOR=1 PAGER=%s %s", home, pager, bin))
	tm.waitDiscovered("Workspace notes")
	tm.keys("j")
	tm.waitSelected("Workspace notes")
	tm.keys("Enter")
	tm.waitFor("Summarize notes")
	tm.keys("Enter")
	tm.waitFor("pattern", "max_files")
	tm.keys("C-s")
	tm.waitFor("Notes report", "verified, staged")
	tm.keys("O")
	tm.waitFor("Opened a sanitized copy (its text) in pager.sh.")
	tm.keys("Enter")
	tm.waitFor("first heading", "O opens it in pager.sh")
	tm.keys("O")
	tm.waitFor("Opened a sanitized copy (its text) in pager.sh.")
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	runs := strings.Split(string(b), "arg=")[1:]
	if len(runs) != 2 {
		t.Fatalf("the pager ran %d times, want 2:\n%s", len(runs), b)
	}
	for _, r := range runs {
		if !strings.HasPrefix(r, filepath.Join(home, "tmp", "modbay-copy-")) || !strings.Contains(r, "mode=600") ||
			!strings.Contains(r, "# Notes report") {
			t.Fatalf("the pager got:\n%s", r)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(home, "tmp")); len(left) != 0 {
		t.Fatalf("copies left in the home's tmp: %v", left)
	}
	tm.keys("Escape", "Escape", "Escape", "Escape", "q")
}

// cockpitProcess returns the pid of the process of bin (not a module)
// that draws the cockpit: the supervised child, whose parent runs bin too,
// or else the only process of bin.
func cockpitProcess(t *testing.T, bin string) int {
	t.Helper()
	isBin := func(pid string) bool {
		b, err := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		args := strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00")
		return err == nil && args[0] == bin && (len(args) < 2 || args[1] != "example-module")
	}
	var alone []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || !isBin(d.Name()) {
			continue
		}
		alone = append(alone, pid)
		b, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		s := string(b)
		// pid (comm) state ppid …
		if i := strings.LastIndexByte(s, ')'); i > 0 {
			if f := strings.Fields(s[i+1:]); len(f) > 1 && isBin(f[1]) {
				return pid
			}
		}
	}
	if len(alone) != 1 {
		t.Fatalf("processes of %s: %v, want the cockpit", bin, alone)
	}
	return alone[0]
}

// paneFormat is a tmux format of the session's pane (#{alternate_on} …).
func (tm *term) paneFormat(f string) string {
	out, _ := tmuxCommand("display-message", "-p", "-t", tm.session, f).Output()
	return strings.TrimSpace(string(out))
}

// paneModes are the local modes of the pane's terminal as stty names
// them, e.g. "icanon" or "-icanon".
func (tm *term) paneModes(names ...string) []string {
	tm.t.Helper()
	out, err := exec.Command("stty", "-a", "-F", tm.paneFormat("#{pane_tty}")).Output()
	if err != nil {
		tm.t.Fatalf("stty: %v", err)
	}
	var got []string
	for _, w := range strings.Fields(string(out)) {
		if slices.Contains(names, strings.TrimPrefix(w, "-")) {
			got = append(got, w)
		}
	}
	return got
}

// TestCockpitDeathRestoresTheTerminal: a cockpit killed outright
// (SIGKILL) or dying in Go's runtime (SIGABRT: its trace, exit 2) leaves
// the terminal as it found it — canonical with echo, out of the alternate
// screen, the cursor shown — says so in one line on stderr, and modbay
// exits 70.
func TestCockpitDeathRestoresTheTerminal(t *testing.T) {
	needTmux(t)
	if _, err := exec.LookPath("stty"); err != nil {
		t.Skip("no stty")
	}
	bin := buildModbay(t)
	for _, tc := range []struct {
		sig       syscall.Signal
		how, says string
	}{
		{syscall.SIGKILL, "signal: killed", ""},
		{syscall.SIGABRT, "fatal runtime error, exit 2", "SIGABRT: abort"},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			stderr := filepath.Join(t.TempDir(), "stderr")
			tm := startCmd(t, fmt.Sprintf(`env MODBAY_HOME=%s NO_COLOR=1 %s 2>%s; echo "[exited $?]"; sleep 60`, t.TempDir(), bin, stderr))
			tm.waitDiscovered("Web fetch")
			if alt, modes := tm.paneFormat("#{alternate_on}"), tm.paneModes("icanon", "echo"); alt != "1" || !slices.Equal(modes, []string{"-icanon", "-echo"}) {
				t.Fatalf("the running cockpit: alternate screen %s, modes %v: the checks below see nothing", alt, modes)
			}
			if err := syscall.Kill(cockpitProcess(t, bin), tc.sig); err != nil {
				t.Fatal(err)
			}
			tm.waitFor("[exited 70]")
			if alt, cursor := tm.paneFormat("#{alternate_on}"), tm.paneFormat("#{cursor_flag}"); alt != "0" || cursor != "1" {
				t.Errorf("after the death: alternate screen %s, cursor shown %s", alt, cursor)
			}
			if modes := tm.paneModes("icanon", "echo"); !slices.Equal(modes, []string{"icanon", "echo"}) {
				t.Errorf("after the death the terminal has %v", modes)
			}
			b, _ := os.ReadFile(stderr)
			line := "modbay: the cockpit died (" + tc.how + "); the terminal was restored\n"
			if !strings.HasSuffix(string(b), line) || !strings.Contains(string(b), tc.says) {
				t.Errorf("stderr does not end with %q after %q:\n%.3000s", line, tc.says, b)
			}
			assertNoModuleProcs(t, bin)
		})
	}
}

// TestDevDeathRestoresTheTerminal: modbay dev is the cockpit too, under
// the same supervisor: killed outright, it leaves the terminal restored
// and exits 70.
func TestDevDeathRestoresTheTerminal(t *testing.T) {
	needTmux(t)
	if _, err := exec.LookPath("stty"); err != nil {
		t.Skip("no stty")
	}
	bin := buildModbay(t)
	dir := filepath.Join(t.TempDir(), "hello")
	if out, err := exec.Command(bin, "new", "hello", "--lang", "sh", "--dir", dir).CombinedOutput(); err != nil {
		t.Fatalf("modbay new: %v\n%s", err, out)
	}
	tm := startCmd(t, fmt.Sprintf(`env MODBAY_HOME=%s NO_COLOR=1 %s dev %s; echo "[exited $?]"; sleep 60`, t.TempDir(), bin, dir))
	tm.waitFor("dev: watching", "Write a report")
	if alt := tm.paneFormat("#{alternate_on}"); alt != "1" {
		t.Fatalf("the running dev cockpit is not in the alternate screen:\n%s", tm.screen())
	}
	if err := syscall.Kill(cockpitProcess(t, bin), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("modbay: the cockpit died (signal: killed); the terminal was restored", "[exited 70]")
	if alt := tm.paneFormat("#{alternate_on}"); alt != "0" {
		t.Errorf("after the death: alternate screen %s", alt)
	}
	if modes := tm.paneModes("icanon", "echo"); !slices.Equal(modes, []string{"icanon", "echo"}) {
		t.Errorf("after the death the terminal has %v", modes)
	}
}

// TestCockpitSuspendsAndResumes: ctrl+z in the cockpit, started from an
// interactive shell, stops it (the supervising parent with it) and gives
// the shell back; fg brings the cockpit back, answering keys, and q ends
// it with 0.
func TestCockpitSuspendsAndResumes(t *testing.T) {
	needTmux(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash for job control")
	}
	bin := buildModbay(t)
	tm := startCmd(t, bash+" --norc --noprofile -i")
	tm.typeText(fmt.Sprintf("PS1='$ ' MODBAY_HOME=%s NO_COLOR=1 %s", t.TempDir(), bin))
	tm.keys("Enter")
	tm.waitDiscovered("Web fetch")
	tm.keys("C-z")
	tm.waitFor("Stopped")
	if alt := tm.paneFormat("#{alternate_on}"); alt != "0" {
		t.Fatalf("the suspended cockpit kept the alternate screen:\n%s", tm.screen())
	}
	tm.typeText("fg")
	tm.keys("Enter")
	tm.waitDiscovered("Web fetch")
	tm.keys("j")
	tm.waitSelected("Workspace notes")
	tm.keys("q")
	tm.typeText(`echo "[exited $?]"`)
	tm.keys("Enter")
	tm.waitFor("[exited 0]")
}
