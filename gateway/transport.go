package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

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
// (the SDK ends it). Only protocol messages are written to out.
func Stdio(in io.Reader, out io.Writer) mcp.Transport {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(filterLines(in, pw, w))
	}()
	return &mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: MaxFrame + 1}
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
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// Close leaves the underlying output open (it is standard output).
func (l *lockedWriter) Close() error { return nil }
