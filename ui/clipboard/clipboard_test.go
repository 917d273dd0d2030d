package clipboard

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

func TestDetect(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	found := func(string) (string, error) { return "/usr/bin/tmux", nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	if c := Detect(env(nil), found); c.Tmux != "" {
		t.Fatalf("outside tmux: %+v", c)
	}
	if c := Detect(env(map[string]string{"TMUX": "/tmp/tmux-1/default,1,0"}), found); c.Tmux != "/usr/bin/tmux" {
		t.Fatalf("inside tmux: %+v", c)
	}
	if c := Detect(env(map[string]string{"TMUX": "/tmp/tmux-1/default,1,0"}), missing); c.Tmux != "" {
		t.Fatalf("inside tmux without tmux on PATH: %+v", c)
	}
}

// TestNotesClaimOnlyWhatHappened pins each way's wording.
func TestNotesClaimOnlyWhatHappened(t *testing.T) {
	cases := []struct {
		r    Result
		want string
	}{
		{Result{Way: OSC52}, "Sent to the terminal's clipboard (OSC 52, unconfirmed): the path /x"},
		{Result{Way: TmuxBufferAndClipboard}, "Copied to the tmux buffer; sent on to the terminal only if tmux's set-clipboard is on: the path /x"},
		{Result{Way: TmuxBufferAndClipboard, SetClipboard: "on"}, "Copied to the tmux buffer; tmux sent it on to the terminal (OSC 52, unconfirmed): the path /x"},
		{Result{Way: TmuxBufferAndClipboard, SetClipboard: "external"}, "Copied to the tmux buffer; tmux sent it on to the terminal (OSC 52, unconfirmed): the path /x"},
		{Result{Way: TmuxBufferAndClipboard, SetClipboard: "off"}, "Copied to the tmux buffer only (tmux's set-clipboard is off: set -g set-clipboard on sends it to the terminal): the path /x"},
		{Result{Way: TmuxBuffer}, "Copied to the tmux buffer only (this tmux cannot reach the system clipboard): the path /x"},
		{Result{Way: TmuxBufferAndClipboard, Err: errors.New("no server running")}, "Not copied: tmux refused it (no server running): the path /x"},
	}
	for _, c := range cases {
		if got := c.r.Note("the path /x"); got != c.want {
			t.Errorf("%+v: %q, want %q", c.r, got, c.want)
		}
	}
}

// TestCopyOSC52 sends the clipboard write and reports the way.
func TestCopyOSC52(t *testing.T) {
	msg := Clipboard{}.Copy("/x", func(r Result) tea.Msg { return r })()
	batch, ok := msg.(tea.BatchMsg)
	if !ok || len(batch) != 2 {
		t.Fatalf("want a batch of the write and the report, got %T", msg)
	}
	want := fmt.Sprint(tea.SetClipboard("/x")())
	if got := fmt.Sprint(batch[0]()); got != want {
		t.Fatalf("first: %s, want %s", got, want)
	}
	if r := batch[1](); r != (Result{Way: OSC52}) {
		t.Fatalf("report %#v", r)
	}
}

// fakeTmux writes a tmux stand-in that records its load-buffer arguments
// and stdin and answers "off" for set-clipboard; noW makes it refuse -w
// as a tmux before 3.2 does.
func fakeTmux(t *testing.T, noW bool) (bin, args, stdin string) {
	dir := t.TempDir()
	bin, args, stdin = filepath.Join(dir, "tmux"), filepath.Join(dir, "args"), filepath.Join(dir, "stdin")
	refuse := `case "$*" in "show-options -gv set-clipboard") echo off; exit 0;; esac` + "\n"
	if noW {
		refuse += `case "$*" in *-w*) echo "unknown flag -w" >&2; echo "usage: load-buffer [-b buffer-name] path" >&2; exit 1;; esac` + "\n"
	}
	script := "#!/bin/sh\n" + refuse + `echo "$*" > ` + args + "\ncat > " + stdin + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, args, stdin
}

func TestCopyThroughTmux(t *testing.T) {
	for _, noW := range []bool{false, true} {
		bin, args, stdin := fakeTmux(t, noW)
		text := "/tmp/a b;$(rm -rf ~)\n"
		r := Clipboard{Tmux: bin}.Copy(text, func(r Result) tea.Msg { return r })().(Result)
		want := Result{Way: TmuxBufferAndClipboard, SetClipboard: "off"}
		wantArgs := "load-buffer -w -\n"
		if noW {
			want, wantArgs = Result{Way: TmuxBuffer}, "load-buffer -\n"
		}
		if r != want {
			t.Fatalf("noW %v: %+v, want %+v", noW, r, want)
		}
		if b, _ := os.ReadFile(args); string(b) != wantArgs {
			t.Errorf("noW %v: args %q, want %q", noW, b, wantArgs)
		}
		if b, _ := os.ReadFile(stdin); string(b) != text {
			t.Errorf("noW %v: stdin %q, want the text as is", noW, b)
		}
	}
}

func TestCopyThroughTmuxFailure(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tmux")
	os.WriteFile(bin, []byte("#!/bin/sh\necho 'no server running on /tmp/x' >&2\nexit 1\n"), 0o755)
	r := Clipboard{Tmux: bin}.Copy("x", func(r Result) tea.Msg { return r })().(Result)
	if r.Err == nil || !strings.Contains(r.Err.Error(), "no server running") {
		t.Fatalf("%+v", r)
	}
}

// TestCopyThroughRealTmux loads a buffer into a private tmux server and
// reads it back with show-buffer.
func TestCopyThroughRealTmux(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux not installed")
	}
	sock := filepath.Join(t.TempDir(), "s")
	if out, err := exec.Command(tmux, "-S", sock, "new-session", "-d", "sleep 30").CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	defer exec.Command(tmux, "-S", sock, "kill-server").Run()
	t.Setenv("TMUX", sock+",1,0")
	c := Detect(os.Getenv, exec.LookPath)
	done := make(chan Result, 1)
	go func() { done <- c.Copy("copied through tmux", func(r Result) tea.Msg { return r })().(Result) }()
	select {
	case r := <-done:
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		if r.Way == TmuxBufferAndClipboard && r.SetClipboard == "" {
			t.Fatal("tmux's set-clipboard option was not read")
		}
	case <-time.After(2 * tmuxTimeout):
		t.Fatal("tmux load-buffer hung")
	}
	out, err := exec.Command(tmux, "-S", sock, "show-buffer").Output()
	if err != nil || string(out) != "copied through tmux" {
		t.Fatalf("show-buffer: %q %v", out, err)
	}
}
