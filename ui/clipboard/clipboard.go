package clipboard

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// tmuxTimeout bounds one tmux load-buffer: it talks to the local tmux
// server and returns at once; a hung server must not hang the copy.
const tmuxTimeout = 2 * time.Second

// maxErrText bounds how much of tmux's complaint a note carries.
const maxErrText = 200

// Way is how a copy was handed on.
type Way int

const (
	// OSC52 sent the text to the terminal as an OSC 52 clipboard write,
	// which the terminal never confirms.
	OSC52 Way = iota
	// TmuxBufferAndClipboard loaded the text into tmux's paste buffer
	// with -w, so tmux also forwards it to the outer clipboard if its
	// set-clipboard option lets it.
	TmuxBufferAndClipboard
	// TmuxBuffer loaded the text into tmux's paste buffer only (a tmux
	// older than 3.2 has no -w).
	TmuxBuffer
)

// Clipboard is how this session copies: through tmux when Tmux names the
// tmux executable (the program runs inside tmux), else OSC 52. The zero
// value copies with OSC 52.
type Clipboard struct {
	// Tmux is the absolute path of tmux when $TMUX is set and tmux is on
	// PATH; "" otherwise.
	Tmux string
}

// Detect reads the environment once (getenv, lookPath: os.Getenv and
// exec.LookPath in the program, fakes in tests): inside tmux with a tmux
// on PATH, copies go through tmux.
func Detect(getenv func(string) string, lookPath func(string) (string, error)) Clipboard {
	if getenv("TMUX") == "" {
		return Clipboard{}
	}
	p, err := lookPath("tmux")
	if err != nil {
		return Clipboard{}
	}
	return Clipboard{Tmux: p}
}

// Result is what became of one copy.
type Result struct {
	Way Way
	// Err is why tmux refused the text (nothing was copied); nil otherwise.
	Err error
	// SetClipboard is tmux's set-clipboard option as tmux reported it
	// after a TmuxBufferAndClipboard copy ("on", "external": tmux sends
	// the buffer on to the terminal; "off": it does not); "" unknown.
	SetClipboard string
}

// Note says what happened to a copy of what (a short description such as
// "the path /tmp/x", already sanitized for the terminal), claiming no more
// than the way used can know. The way comes first, so a narrow status
// line cuts the (repeated) text rather than the verdict.
func (r Result) Note(what string) string {
	switch {
	case r.Err != nil:
		return fmt.Sprintf("Not copied: tmux refused it (%v): %s", r.Err, what)
	case r.Way == TmuxBufferAndClipboard && (r.SetClipboard == "on" || r.SetClipboard == "external"):
		return "Copied to the tmux buffer; tmux sent it on to the terminal (OSC 52, unconfirmed): " + what
	case r.Way == TmuxBufferAndClipboard && r.SetClipboard == "off":
		return "Copied to the tmux buffer only (tmux's set-clipboard is off: set -g set-clipboard on sends it to the terminal): " + what
	case r.Way == TmuxBufferAndClipboard:
		return "Copied to the tmux buffer; sent on to the terminal only if tmux's set-clipboard is on: " + what
	case r.Way == TmuxBuffer:
		return "Copied to the tmux buffer only (this tmux cannot reach the system clipboard): " + what
	default:
		return "Sent to the terminal's clipboard (OSC 52, unconfirmed): " + what
	}
}

// Copy returns the Cmd that copies text and then delivers done(result):
// for OSC 52 the program writes the sequence (tea.SetClipboard) and the
// result follows; through tmux, tmux load-buffer runs in the Cmd, never in
// Update, bounded by tmuxTimeout.
func (c Clipboard) Copy(text string, done func(Result) tea.Msg) tea.Cmd {
	if c.Tmux == "" {
		// The write and the report are independent: the report says only
		// that the write was sent.
		return tea.Batch(tea.SetClipboard(text), func() tea.Msg { return done(Result{Way: OSC52}) })
	}
	tmux := c.Tmux
	return func() tea.Msg {
		err := loadBuffer(tmux, text, true)
		if err == nil {
			return done(Result{Way: TmuxBufferAndClipboard, SetClipboard: setClipboard(tmux)})
		}
		if errors.Is(err, errNoW) {
			err = loadBuffer(tmux, text, false)
			return done(Result{Way: TmuxBuffer, Err: err})
		}
		return done(Result{Way: TmuxBufferAndClipboard, Err: err})
	}
}

// errNoW is a tmux that does not know load-buffer's -w flag.
var errNoW = errors.New("tmux load-buffer has no -w")

// setClipboard is tmux's global set-clipboard option (tmux show-options
// -gv set-clipboard, bounded by tmuxTimeout): "on", "external" or "off";
// "" when tmux does not say one of them.
func setClipboard(tmux string) string {
	ctx, cancel := context.WithTimeout(context.Background(), tmuxTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, tmux, "show-options", "-gv", "set-clipboard").Output()
	if err != nil {
		return ""
	}
	switch v := strings.TrimSpace(string(out)); v {
	case "on", "external", "off":
		return v
	}
	return ""
}

// loadBuffer runs tmux load-buffer [-w] - with text on stdin.
func loadBuffer(tmux, text string, w bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), tmuxTimeout)
	defer cancel()
	args := []string{"load-buffer"}
	if w {
		args = append(args, "-w")
	}
	cmd := exec.CommandContext(ctx, tmux, append(args, "-")...)
	cmd.Stdin = strings.NewReader(text)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(out.String())
	if w && (strings.Contains(msg, "unknown flag -w") || strings.Contains(msg, "unknown option -- w") || strings.Contains(msg, "usage: load-buffer")) {
		return errNoW
	}
	if ctx.Err() != nil {
		return fmt.Errorf("no answer within %v", tmuxTimeout)
	}
	if msg == "" {
		return err
	}
	if len(msg) > maxErrText {
		msg = msg[:maxErrText] + "…"
	}
	return errors.New(msg)
}
