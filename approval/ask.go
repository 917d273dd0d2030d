package approval

import (
	"bufio"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// dialTimeout bounds connecting to one cockpit's socket.
const dialTimeout = time.Second

// Pending is a question asked of the home's cockpits.
type Pending struct {
	done chan struct{}
	once sync.Once
	ans  Answer

	mu    sync.Mutex
	conns []*net.UnixConn
	id    string
}

// Ask sends q to every cockpit listening in dir; the first answer wins
// and withdraws the question from the others. ErrNoCockpit when none
// listens (stale sockets, whose cockpit is gone, are removed).
func Ask(dir string, q Question) (*Pending, error) {
	names, _ := filepath.Glob(filepath.Join(dir, "*.sock"))
	p := &Pending{done: make(chan struct{}), id: q.ID}
	line := encode(message{Ask: &q})
	for _, name := range names {
		c, err := net.DialTimeout("unix", name, dialTimeout)
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) {
				_ = os.Remove(name) // nobody listens: a cockpit that died
			}
			continue
		}
		uc := c.(*net.UnixConn)
		if samePeer(uc) != nil {
			uc.Close()
			continue
		}
		if _, err := uc.Write(line); err != nil {
			uc.Close()
			continue
		}
		p.conns = append(p.conns, uc)
	}
	if len(p.conns) == 0 {
		return nil, ErrNoCockpit
	}
	var wg sync.WaitGroup
	for _, c := range p.conns {
		wg.Add(1)
		go func() { defer wg.Done(); p.read(c) }()
	}
	go func() { wg.Wait(); p.Withdraw() }() // every cockpit gone: no answer will come
	return p, nil
}

// read waits for c's answer to this question.
func (p *Pending) read(c *net.UnixConn) {
	r := bufio.NewReaderSize(c, 4096)
	for {
		m, err := readMessage(r)
		if err != nil {
			return
		}
		if m.Refused == p.id {
			return
		}
		if a := m.Answer; a != nil && a.ID == p.id && valid(a.Decision) {
			p.finish(*a, c)
			return
		}
	}
}

// finish keeps the first answer and withdraws the question elsewhere.
func (p *Pending) finish(a Answer, from *net.UnixConn) {
	p.once.Do(func() {
		a.By = oneLine(a.By)
		p.ans = a
		p.mu.Lock()
		for _, c := range p.conns {
			if c != from {
				_, _ = c.Write(encode(message{Withdraw: p.id}))
			}
			c.Close()
		}
		p.conns = nil
		p.mu.Unlock()
		close(p.done)
	})
}

// Done is closed when the question is answered or withdrawn.
func (p *Pending) Done() <-chan struct{} { return p.done }

// Answer is the answer once Done is closed: Decision "" when withdrawn
// without one.
func (p *Pending) Answer() Answer {
	<-p.done
	return p.ans
}

// Settle ends the question with a (an answer given elsewhere: through
// the store, to the same call asked by an ended serve process),
// withdrawing it from every cockpit; false when it had ended already.
func (p *Pending) Settle(a Answer) bool {
	if !valid(a.Decision) {
		return false
	}
	a.ID = p.id
	settled := false
	p.once.Do(func() {
		settled = true
		a.By = oneLine(a.By)
		p.ans = a
		p.mu.Lock()
		for _, c := range p.conns {
			_, _ = c.Write(encode(message{Withdraw: p.id}))
			c.Close()
		}
		p.conns = nil
		p.mu.Unlock()
		close(p.done)
	})
	return settled
}

// Withdraw takes the question back from every cockpit (nobody answered
// in time); a later answer is then ignored.
func (p *Pending) Withdraw() { p.finish(Answer{ID: p.id}, nil) }

// oneLine keeps an answerer's name to one short printable line.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > 64 {
		s = s[:64]
	}
	return strings.ToValidUTF8(s, "")
}
