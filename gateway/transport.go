package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxFrame bounds one inbound JSON-RPC line in bytes (the SDK's own
// default line bound); a longer line is answered as a parse error.
const MaxFrame = 16 << 20

// parseError is the JSON-RPC answer to a line that is not JSON (id null).
const parseError = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not a JSON-RPC message"}}` + "\n"

// Stdio is the server's transport over in and out (standard input and
// output): newline-delimited JSON-RPC as the SDK's StdioTransport, except
// that a line which is not JSON, or longer than MaxFrame, is answered
// with a JSON-RPC parse error and skipped instead of ending the session
// (the SDK ends it). Only protocol messages are written to out. When in
// ends, the session ends only once every request already read has been
// answered, or after DrainWait.
func Stdio(in io.Reader, out io.Writer) mcp.Transport {
	return stdio(in, out, DrainWait, nil)
}

// Stdio is the package's Stdio for s: when in ends, calls following a job
// stop following it and answer with its handle.
func (s *Server) Stdio(in io.Reader, out io.Writer) mcp.Transport {
	return stdio(in, out, DrainWait, s.eofEnd)
}

// DrainWait bounds how long the session stays open after standard input
// closes, for the answers to the requests already read: a call following
// a job answers with its handle at once, a plain run still going after
// it is killed and recorded cancelled (the client that closed its input
// is gone, or piped its requests and waits only for quick answers).
const DrainWait = 5 * time.Second

func stdio(in io.Reader, out io.Writer, drain time.Duration, eof func()) mcp.Transport {
	p := &pending{ids: map[string]bool{}, empty: make(chan struct{}, 1)}
	w := &lockedWriter{w: out, p: p}
	pr, pw := io.Pipe()
	go func() {
		err := filterLines(in, &readTracker{w: pw, p: p}, w)
		if err == nil {
			if eof != nil {
				eof()
			}
			p.wait(drain)
		}
		pw.CloseWithError(err)
	}()
	return &mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: MaxFrame + 1}
}

// pending is the set of request ids read and not answered yet (each id
// as its compact JSON); empty is signalled whenever the set shrinks.
type pending struct {
	mu    sync.Mutex
	ids   map[string]bool
	empty chan struct{}
}

// frame is what pending needs of one JSON-RPC message.
type frame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// frames decodes one line: a message, or a batch of them (nil otherwise).
func frames(line []byte) []frame {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '[' {
		var fs []frame
		_ = json.Unmarshal(line, &fs)
		return fs
	}
	var f frame
	if json.Unmarshal(line, &f) != nil {
		return nil
	}
	return []frame{f}
}

// idKey is id as a set key ("" for none or null).
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if len(id) == 0 || json.Compact(&b, id) != nil || b.String() == "null" {
		return ""
	}
	return b.String()
}

// read notes the requests of an inbound line; a cancelled request is not
// waited for.
func (p *pending) read(line []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range frames(line) {
		if k := idKey(f.ID); k != "" && f.Method != "" {
			p.ids[k] = true
		} else if f.Method == "notifications/cancelled" {
			p.done(idKey(f.Params.RequestID))
		}
	}
}

// wrote notes the answers of an outbound line.
func (p *pending) wrote(line []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range bytes.Split(line, []byte{'\n'}) {
		for _, f := range frames(l) {
			if k := idKey(f.ID); k != "" && f.Method == "" {
				p.done(k)
			}
		}
	}
}

// done removes k (p.mu held).
func (p *pending) done(k string) {
	if !p.ids[k] {
		return
	}
	delete(p.ids, k)
	select {
	case p.empty <- struct{}{}:
	default:
	}
}

// wait returns once no request is pending, or after d.
func (p *pending) wait(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		p.mu.Lock()
		n := len(p.ids)
		p.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-p.empty:
		case <-t.C:
			return
		}
	}
}

// readTracker passes each inbound line on, noting its requests first.
type readTracker struct {
	w io.Writer
	p *pending
}

func (r *readTracker) Write(b []byte) (int, error) {
	r.p.read(b)
	return r.w.Write(b)
}

// filterLines copies each JSON line of in to valid and answers every
// other on errs; it returns when in ends (nil at EOF).
func filterLines(in io.Reader, valid io.Writer, errs io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
		}
		if len(line) > MaxFrame {
			tooLong, line = true, line[:0]
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if t := bytes.TrimSpace(line); len(t) > 0 || tooLong {
			if !tooLong && json.Valid(t) {
				if _, werr := valid.Write(append(t, '\n')); werr != nil {
					return werr
				}
			} else if _, werr := io.WriteString(errs, parseError); werr != nil {
				return werr
			}
		}
		line, tooLong = line[:0], false
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// lockedWriter serializes the SDK's writes and the parse errors'.
// It notes each answer in p (nil: none noted).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
	p  *pending
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(b)
	if l.p != nil {
		l.p.wrote(b)
	}
	return n, err
}

// Close leaves the underlying output open (it is standard output).
func (l *lockedWriter) Close() error { return nil }
