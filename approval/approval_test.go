package approval

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func next(t *testing.T, l *Listener) Event {
	t.Helper()
	select {
	case ev := <-l.Events():
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
	}
	return Event{}
}

func TestAskAnswerAndWithdraw(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cockpits")
	if _, err := Ask(dir, Question{ID: "apr_1"}); err != ErrNoCockpit {
		t.Fatalf("no cockpit: %v", err)
	}
	// A socket nobody listens on (a cockpit that died) is removed.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "1-dead.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := Ask(dir, Question{ID: "apr_1"}); err != ErrNoCockpit {
		t.Fatalf("stale socket: %v", err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale socket kept: %v", err)
	}

	l, err := Listen(dir, "the cockpit")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("sockets folder: %v %v", fi.Mode(), err)
	}
	p, err := Ask(dir, Question{ID: "apr_2", Tool: "fetch_url"})
	if err != nil {
		t.Fatal(err)
	}
	if ev := next(t, l); ev.Ask == nil || ev.Ask.Tool != "fetch_url" {
		t.Fatalf("event %+v", ev)
	}
	if err := l.Answer("apr_2", "maybe"); err == nil {
		t.Error("an unknown decision was sent")
	}
	if err := l.Answer("apr_2", Session); err != nil {
		t.Fatal(err)
	}
	if a := p.Answer(); a.Decision != Session || a.By != "the cockpit" {
		t.Errorf("answer %+v", a)
	}

	// Withdrawn by the asker: the cockpit hears it, a late answer fails.
	p, err = Ask(dir, Question{ID: "apr_3"})
	if err != nil {
		t.Fatal(err)
	}
	next(t, l)
	p.Withdraw()
	if ev := next(t, l); ev.Withdrawn != "apr_3" {
		t.Errorf("event %+v, want the withdrawal", ev)
	}
	if err := l.Answer("apr_3", Once); err == nil {
		t.Error("a withdrawn question was answered")
	}
	if a := p.Answer(); a.Decision != "" {
		t.Errorf("withdrawn question answered %+v", a)
	}

	// The cockpit closing ends the question unanswered.
	p, err = Ask(dir, Question{ID: "apr_4"})
	if err != nil {
		t.Fatal(err)
	}
	next(t, l)
	l.Close()
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the question outlived every cockpit")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.sock")); len(m) != 0 {
		t.Errorf("sockets left: %v", m)
	}
}

// FuzzReadMessage: whatever a peer sends, reading it never panics and a
// message is bounded.
func FuzzReadMessage(f *testing.F) {
	f.Add([]byte(`{"ask":{"id":"apr_1","tool":"x"}}` + "\n"))
	f.Add([]byte(`{"answer":{"id":"apr_1","decision":"once"}}` + "\n"))
	f.Add([]byte("{\"withdraw\":\"a\"}\n{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(b), 16)
		for range 8 {
			if _, err := readMessage(r); err != nil {
				return
			}
		}
	})
}
