package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"modbay/internal/words"
)

// SessionsDir is where each serve process keeps its live sessions under
// <home>/serve, one file per process (<pid>.json), for the cockpit.
const SessionsDir = "sessions"

// maxSessionsFile bounds one process's sessions file read, in bytes.
const maxSessionsFile = 1 << 20

// LiveSession is one client's session of a serve process, as the
// cockpit lists it.
type LiveSession struct {
	// Client is the client's declared name (sanitized, at most 64 bytes).
	Client string `json:"client"`
	// Since is when the session began; Calls counts its tool calls,
	// NotRun those answered with nothing run (refused: busy, an invalid
	// input, a tool not served or withheld; or approval required, denied
	// or pending), Running those in flight and Pending its questions
	// waiting for a person in the cockpit.
	Since   time.Time `json:"since"`
	Calls   int       `json:"calls"`
	NotRun  int       `json:"not_run"`
	Running int       `json:"running"`
	Pending int       `json:"pending"`
	// PID is the serve process's; Transport "stdio" or "http".
	PID       int    `json:"pid"`
	Transport string `json:"transport"`
}

// sessionsPublishDelay is how long a call's change to its session's counts
// (sessionsChanged) waits before the sessions file is written: the changes
// of calls that start and end within it are written once, off the call's
// path. The cockpit's list of sessions lags by at most this.
const sessionsPublishDelay = 100 * time.Millisecond

// sessionsChanged publishes the live sessions within sessionsPublishDelay,
// once for every change made until then: a tool call's counts change twice
// per call, and writing the file (a new inode and a rename) on each was a
// measurable share of a call's host overhead.
func (s *Server) sessionsChanged() {
	if s.opts.Sessions == "" || !s.pubDue.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(sessionsPublishDelay, func() {
		s.pubDue.Store(false)
		s.publishSessions()
	})
}

// publishSessions writes this process's live sessions for the cockpit
// (atomically; nothing when Options.Sessions is ""). Errors are ignored:
// a session never fails for want of being listed.
func (s *Server) publishSessions() {
	dir := s.opts.Sessions
	if dir == "" {
		return
	}
	s.mu.Lock()
	out := make([]LiveSession, 0, len(s.sessions))
	for _, st := range s.sessions {
		st.mu.Lock()
		l := LiveSession{Client: st.client, Since: st.since, Calls: st.calls, NotRun: st.notRun, Running: st.running, PID: os.Getpid(), Transport: s.transport}
		st.mu.Unlock()
		for _, a := range s.asks {
			if a.st == st {
				select {
				case <-a.p.Done():
				default:
					l.Pending++
				}
			}
		}
		out = append(out, l)
	}
	s.mu.Unlock()
	path := filepath.Join(dir, strconv.Itoa(os.Getpid())+".json")
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	if len(out) == 0 || s.base.Err() != nil {
		_ = os.Remove(path)
		return
	}
	b, err := json.Marshal(out)
	if err != nil || os.MkdirAll(dir, 0o700) != nil {
		return
	}
	tmp := path + ".tmp"
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, path)
	}
}

// ReadSessions lists the live sessions of the home's serve processes
// (dir is <home>/serve/sessions), oldest first; the file of a process
// that is gone is removed.
func ReadSessions(dir string) ([]LiveSession, error) {
	names, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []LiveSession
	for _, n := range names {
		if p, ok := strings.CutSuffix(n.Name(), catalogueSuffix); ok {
			if pid, err := strconv.Atoi(p); err == nil && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
				removeCatalogue(dir, pid) // its process ended without cleaning up
			}
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSuffix(n.Name(), ".json"))
		if err != nil || !strings.HasSuffix(n.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, n.Name())
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			_ = os.Remove(path) // its process ended without cleaning up
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		b := make([]byte, maxSessionsFile+1)
		k, _ := readFull(f, b)
		f.Close()
		var ls []LiveSession
		if k > maxSessionsFile || json.Unmarshal(b[:k], &ls) != nil {
			continue
		}
		for i := range ls {
			ls[i].PID = pid // the file's name says whose it is
			ls[i].Client = clientName(ls[i].Client)
		}
		out = append(out, ls...)
	}
	slices.SortFunc(out, func(a, b LiveSession) int { return a.Since.Compare(b.Since) })
	return out, nil
}

// String is one line: client, since, calls (and how many did not run),
// running, pending.
func (l LiveSession) String() string {
	calls := words.Count(l.Calls, "call", "calls")
	if l.NotRun > 0 {
		calls += fmt.Sprintf(" (%d not run)", l.NotRun)
	}
	return fmt.Sprintf("%s (%s, pid %d) since %s: %s, %d running, %s",
		l.Client, l.Transport, l.PID, l.Since.Local().Format(time.TimeOnly), calls, l.Running,
		words.Count(l.Pending, "pending approval", "pending approvals"))
}
