package approval

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Event is what a Listener tells its cockpit: a new question, or a
// question withdrawn (answered elsewhere, or its serve process gone).
type Event struct {
	Ask *Question
	// Withdrawn is the id of a question no longer open; Why says why
	// ("its serve process ended", …), for the person.
	Withdrawn, Why string
	// Orphaned is the id of a question whose serve process ended while
	// it stays open (stored under PendingDir until it expires): an answer
	// now applies when the agent calls again.
	Orphaned string
}

// Why a question was withdrawn.
const (
	WhyProcessEnded = "its serve process ended"
	WhyWithdrawn    = "answered in another cockpit or expired"
)

// Listener is one cockpit's approval socket.
type Listener struct {
	ln     *net.UnixListener
	path   string
	by     string
	events chan Event

	mu   sync.Mutex
	open map[string]*net.UnixConn // question id → its serve process
	// orphans are questions open after their serve process ended,
	// answered through the store (PendingDir beside the sockets).
	orphans map[string]bool
	pending string
	conns   map[*net.UnixConn]bool // every serve process connected
	done    bool
}

// Listen opens a cockpit's socket in dir (<home>/serve/cockpits, made
// 0700): its events are read from Events until Close. by names the
// answerer in the serve process's record ("the cockpit (pid N)").
func Listen(dir, by string) (*Listener, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	// A socket path is bounded (108 bytes on Linux): a short name.
	path := filepath.Join(dir, fmt.Sprintf("%d-%s.sock", os.Getpid(), hex.EncodeToString(b[:])))
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	_ = os.Chmod(path, 0o600)
	l := &Listener{ln: ln, path: path, by: by, events: make(chan Event, MaxOpen), open: map[string]*net.UnixConn{}, conns: map[*net.UnixConn]bool{},
		orphans: map[string]bool{}, pending: filepath.Join(filepath.Dir(dir), PendingDir)}
	go l.accept()
	return l, nil
}

// Events delivers the questions and withdrawals; it is closed by Close.
func (l *Listener) Events() <-chan Event { return l.events }

// Path is the socket's path.
func (l *Listener) Path() string { return l.path }

func (l *Listener) accept() {
	for {
		c, err := l.ln.AcceptUnix()
		if err != nil {
			return
		}
		if samePeer(c) != nil {
			c.Close()
			continue
		}
		l.mu.Lock()
		if l.done {
			l.mu.Unlock()
			c.Close()
			return
		}
		l.conns[c] = true
		l.mu.Unlock()
		go l.serve(c)
	}
}

// serve reads one serve process's questions and withdrawals until it
// hangs up; its questions still open are then orphaned when stored
// (Event.Orphaned), else withdrawn.
func (l *Listener) serve(c *net.UnixConn) {
	defer func() {
		l.mu.Lock()
		delete(l.conns, c)
		l.mu.Unlock()
		c.Close()
	}()
	mine := map[string]bool{}
	defer func() {
		for id := range mine {
			l.hangup(id, c)
		}
	}()
	r := bufio.NewReaderSize(c, 64<<10)
	for {
		m, err := readMessage(r)
		if err != nil {
			return
		}
		switch {
		case m.Ask != nil && m.Ask.ID != "":
			l.mu.Lock()
			full := len(l.open) >= MaxOpen || l.done
			_, dup := l.open[m.Ask.ID]
			if !full && !dup {
				l.open[m.Ask.ID] = c
				mine[m.Ask.ID] = true
			}
			l.mu.Unlock()
			if full {
				_, _ = c.Write(encode(message{Refused: m.Ask.ID}))
				continue
			}
			if !dup {
				l.send(Event{Ask: m.Ask})
			}
		case m.Withdraw != "":
			delete(mine, m.Withdraw)
			l.withdraw(m.Withdraw, c, WhyWithdrawn)
		}
	}
}

// send delivers e unless the listener is closed (Events is then closed).
func (l *Listener) send(e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		select {
		case l.events <- e:
		default: // the cockpit is not reading: at most MaxOpen questions are open, so this is a withdrawal it can miss
		}
	}
}

func (l *Listener) withdraw(id string, c *net.UnixConn, why string) {
	l.mu.Lock()
	owned := l.open[id] == c
	if owned {
		delete(l.open, id)
	}
	l.mu.Unlock()
	if owned {
		l.send(Event{Withdrawn: id, Why: why})
	}
}

// hangup ends question id of serve process c, which went away: kept open
// as an orphan when its serve process stored it and it has not expired.
func (l *Listener) hangup(id string, c *net.UnixConn) {
	if _, ok := Load(l.pending, id, time.Now()); !ok {
		l.withdraw(id, c, WhyProcessEnded)
		return
	}
	l.mu.Lock()
	owned := l.open[id] == c
	if owned {
		delete(l.open, id)
		l.orphans[id] = true
	}
	l.mu.Unlock()
	if owned {
		l.send(Event{Orphaned: id})
	}
}

// Answer sends the person's decision on question id to the serve process
// that asked; an error when the question is no longer open.
func (l *Listener) Answer(id string, d Decision) error {
	if !valid(d) {
		return fmt.Errorf("approval: decision %q", d)
	}
	l.mu.Lock()
	c := l.open[id]
	delete(l.open, id)
	orphan := l.orphans[id]
	delete(l.orphans, id)
	l.mu.Unlock()
	if c == nil && orphan {
		return AnswerStored(l.pending, id, Answer{Decision: d, By: l.by}, time.Now())
	}
	if c == nil {
		return fmt.Errorf("approval question %s is no longer open (answered elsewhere, or its agent went away)", id)
	}
	_, err := c.Write(encode(message{Answer: &Answer{ID: id, Decision: d, By: l.by}}))
	return err
}

// Close stops listening, hangs up on every serve process (their
// questions end unanswered) and removes the socket; Events is closed.
func (l *Listener) Close() error {
	l.mu.Lock()
	if l.done {
		l.mu.Unlock()
		return nil
	}
	l.done = true
	close(l.events)
	for c := range l.conns { // every serve process asking hears the cockpit went
		c.Close()
	}
	l.mu.Unlock()
	err := l.ln.Close() // removes the socket file (net unlinks on close)
	_ = os.Remove(l.path)
	return err
}
