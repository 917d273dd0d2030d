package ui

import "sync"

// runGroup tracks runs in flight. Once closed, no run may start: a run
// command that Bubble Tea executes after the program ended runs nothing.
type runGroup struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// enter registers a run about to start; false means the group is closed.
func (g *runGroup) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	return true
}

// leave marks a run finished.
func (g *runGroup) leave() { g.wg.Done() }

// close refuses every later run.
func (g *runGroup) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// wait blocks until every entered run has left.
func (g *runGroup) wait() { g.wg.Wait() }
