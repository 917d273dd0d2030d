package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"modbay/runner"
	"modbay/schema"
)

// A run begun with BeginOptions.Live writes its live events (stderr,
// progress, log lines, job polls, the pid) beside its record while it
// runs, as JSON lines in <history>/runs/<id>.live, so a cockpit of the
// same home follows a run of another process (an agent's call through
// modbay mcp serve) as it follows its own. The file is made on the first
// event and removed once the outcome is recorded.

// liveSuffix ends a run's live events file beside its record.
const liveSuffix = ".live"

// Bounds of the live events.
const (
	// MaxLiveBytes bounds one run's live events file: events past it are
	// dropped, and one last line says so (LiveCut).
	MaxLiveBytes = 1 << 20
	// maxLiveRead bounds one ReadLive, in bytes: a follower catches up
	// over several reads.
	maxLiveRead = 256 << 10
	// maxLiveStderr bounds the stderr of one live event, and
	// maxLiveText a progress message, job detail or log text, in bytes,
	// the cut's mark included (cutLive).
	maxLiveStderr = 16 << 10
	maxLiveText   = 4 << 10
	// maxLiveCutMark bounds the mark of a cut (liveCutMark, its count).
	maxLiveCutMark = 32
)

// liveCutMark ends a live text cut at its bound: the bytes cut, counted.
const liveCutMark = "… (%d bytes cut)"

// liveLine is one live event as written: one field set per line.
type liveLine struct {
	Stderr   string   `json:"stderr,omitempty"`
	PID      int      `json:"pid,omitempty"`
	Progress *liveNum `json:"progress,omitempty"`
	Job      *liveJob `json:"job,omitempty"`
	Log      *liveLog `json:"log,omitempty"`
	// Cut says the events past MaxLiveBytes were dropped.
	Cut bool `json:"cut,omitempty"`
}

type liveNum struct {
	Percent *float64 `json:"percent,omitempty"`
	Message string   `json:"message,omitempty"`
}

type liveJob struct {
	ID      string   `json:"id"`
	State   string   `json:"state,omitempty"`
	Percent *float64 `json:"percent,omitempty"`
	Detail  string   `json:"detail,omitempty"`
	Polls   int      `json:"polls,omitempty"`
}

type liveLog struct {
	Level string `json:"level,omitempty"`
	Text  string `json:"text,omitempty"`
}

func (s *Store) livePath(id string) string { return filepath.Join(s.dir, runsDir, id+liveSuffix) }

// liveWriter appends a run's live events; its methods are called under
// Run.mu.
type liveWriter struct {
	path string
	f    *os.File
	n    int
	// off: the file could not be made, or it is full.
	off bool
	// echoes are the run's secrets (runner.PlanEchoes): masked in every
	// line again, and no cut leaves the start of one.
	echoes []schema.Echo
}

// write appends ev as one line (the file made on the first); a write
// that fails stops the live events, never the run.
func (w *liveWriter) write(ev runner.Event) {
	if w == nil || w.off {
		return
	}
	var l liveLine
	switch {
	case len(ev.Stderr) > 0:
		l.Stderr = string(cutLive(ev.Stderr, maxLiveStderr, w.echoes))
	case ev.PID != 0:
		l.PID = ev.PID
	case ev.Progress != nil:
		l.Progress = &liveNum{Percent: ev.Progress.Percent, Message: w.cutText(ev.Progress.Message)}
	case ev.Job != nil:
		j := ev.Job
		l.Job = &liveJob{ID: w.cutText(j.ID), State: w.cutText(j.State), Percent: j.Percent, Detail: w.cutText(j.Detail), Polls: j.Polls}
	case ev.Log != nil:
		l.Log = &liveLog{Level: w.cutText(ev.Log.Level), Text: w.cutText(ev.Log.Text)}
	default:
		return
	}
	b, err := json.Marshal(l)
	if err != nil {
		return
	}
	b = append(b, '\n')
	if w.n+len(b) > MaxLiveBytes {
		b, w.off = []byte(`{"cut":true}`+"\n"), true
	}
	if w.f == nil {
		if w.f, err = os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600); err != nil {
			w.off = true
			return
		}
	}
	k, err := w.f.Write(b)
	w.n += k
	if err != nil {
		w.off = true
	}
}

// close ends the live events and removes the file.
func (w *liveWriter) close() {
	if w == nil {
		return
	}
	w.off = true
	if w.f != nil {
		w.f.Close()
		w.f = nil
		_ = os.Remove(w.path)
	}
}

// Live is what ReadLive read of a run's live events.
type Live struct {
	// Events are the events read, in order (RequestID unset).
	Events []runner.Event
	// Next is the offset to read from next.
	Next int64
	// Cut says the run wrote more than MaxLiveBytes: later events were
	// dropped.
	Cut bool
}

// ReadLive reads run id's live events from byte offset off: the complete
// lines written since, at most maxLiveRead bytes of them. No file (the run
// wrote no event yet, or it ended) is no event. Lines that do not decode
// are skipped: the writer is another process, and its bytes are
// untrusted as any file's.
func (s *Store) ReadLive(id string, off int64) (Live, error) {
	out := Live{Next: off}
	if err := CheckID(id); err != nil {
		return out, err
	}
	f, err := os.Open(s.livePath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	defer f.Close()
	b := make([]byte, maxLiveRead)
	n, err := f.ReadAt(b, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return out, err
	}
	b = b[:n]
	end := bytes.LastIndexByte(b, '\n')
	if end < 0 {
		if n == maxLiveRead {
			out.Next = off + int64(n) // no line is this long: skip it
		}
		return out, nil
	}
	out.Next = off + int64(end) + 1
	for _, line := range bytes.Split(b[:end], []byte("\n")) {
		var l liveLine
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		switch {
		case l.Cut:
			out.Cut = true
		case l.Stderr != "":
			out.Events = append(out.Events, runner.Event{Stderr: []byte(l.Stderr)})
		case l.PID > 0:
			out.Events = append(out.Events, runner.Event{PID: l.PID})
		case l.Progress != nil:
			out.Events = append(out.Events, runner.Event{Progress: &runner.Progress{Percent: l.Progress.Percent, Message: l.Progress.Message}})
		case l.Job != nil:
			j := l.Job
			out.Events = append(out.Events, runner.Event{Job: &runner.JobStatus{ID: j.ID, State: j.State, Percent: j.Percent, Detail: j.Detail, Polls: max(j.Polls, 0)}})
		case l.Log != nil:
			out.Events = append(out.Events, runner.Event{Log: &runner.LogLine{Level: l.Log.Level, Text: l.Log.Text}})
		}
	}
	return out, nil
}

// isLive reports whether name (in the runs folder) is a live events file,
// and its run id.
func isLive(name string) (string, bool) {
	id, ok := strings.CutSuffix(name, liveSuffix)
	return id, ok && !strings.HasPrefix(name, ".")
}

// cutText is s as a live line keeps it: cutLive to maxLiveText bytes.
func (w *liveWriter) cutText(s string) string {
	return string(cutLive([]byte(s), maxLiveText, w.echoes))
}

// cutLive is b as a live line keeps it, at most limit bytes: its echoes
// masked (schema.MaskEchoes; the runner masked them already, this holds
// whatever it did not see whole), then, when longer, its start, cut at a
// character's start, less any end that begins an echo
// (schema.EchoPrefixLen: the rest of that secret was cut off), and the
// cut marked (liveCutMark). Keeping the start, never the end, means no
// end of a secret is left either.
func cutLive(b []byte, limit int, echoes []schema.Echo) []byte {
	b, _ = schema.MaskEchoes(b, echoes)
	if len(b) <= limit {
		return b
	}
	k := max(limit-maxLiveCutMark, 0)
	for k > 0 && !utf8.RuneStart(b[k]) {
		k--
	}
	k -= schema.EchoPrefixLen(b[:k], echoes)
	// b[:k:k]: the mark goes to a copy, never over the caller's bytes.
	return fmt.Appendf(b[:k:k], liveCutMark, len(b)-k)
}
