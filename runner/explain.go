package runner

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"modbay/modproto"
)

// Limits of the explanations given to a module's author when its stdout is
// not an envelope.
const (
	// noiseQuoteRunes bounds the quote of what stdout started with: enough
	// to recognise a log line, short enough for one line.
	noiseQuoteRunes = 60
	// stderrTailLines and stderrTailRunes bound the stderr tail quoted
	// after a crash: a traceback's last lines name the exception.
	stderrTailLines = 3
	stderrTailRunes = 300
)

// explainDecode turns a DecodeError on a module's stdout into a message an
// author can act on, for the first mistakes everyone makes
// (docs/modules.md#the-envelope):
//   - the process exited non-zero with no envelope: "exited with status N
//     before writing an envelope", with the end of its stderr;
//   - something was printed before the JSON: what it was (quoted, control
//     characters escaped) and that logs belong on stderr;
//   - something was printed after the envelope: what it was (quoted) and
//     the same advice;
//   - a field of the wrong JSON type: the field, the type expected and
//     what was sent (modproto.WrongTypeDetail), never a Go type name.
//
// The code is left as it was: docs/protocol.md §3 says the exit code never decides
// the outcome. Anything else keeps de's own detail.
func explainDecode(de *modproto.DecodeError, stdout []byte, stderr string, exitCode int) string {
	trimmed := bytes.TrimLeft(stdout, " \t\r\n")
	envelope := len(trimmed) > 0 && trimmed[0] == '{'
	switch {
	case exitCode > 0 && (!envelope || de.Code == modproto.CodeHostInvalidJSON):
		s := fmt.Sprintf("exited with status %d before writing an envelope", exitCode)
		if envelope {
			s = fmt.Sprintf("exited with status %d before finishing its envelope (%s)", exitCode, de.Detail)
		} else if len(trimmed) > 0 {
			s += fmt.Sprintf(" (stdout began %s)", quoteStart(trimmed))
		}
		if tail := stderrTail(stderr); tail != "" {
			s += "; stderr ends: " + tail
		} else {
			s += "; stderr is empty"
		}
		return s
	case len(trimmed) > 0 && !envelope:
		s := fmt.Sprintf("stdout starts with %s, not the JSON envelope: stdout carries only the envelope; print logs and progress to stderr", quoteStart(trimmed))
		if i := bytes.IndexByte(trimmed, '{'); i > 0 {
			s += fmt.Sprintf(" (the first '{' is at byte %d)", i+len(stdout)-len(trimmed))
		}
		return s
	case de.Trailing && de.Offset <= int64(len(stdout)):
		rest := bytes.TrimSpace(stdout[de.Offset:])
		return fmt.Sprintf("%d bytes after the envelope, starting %s: stdout carries only the envelope; print logs and progress to stderr (docs/protocol.md §6)", len(rest), quoteStart(rest))
	case de.Code == modproto.CodeHostProtocolViolation && envelope:
		if d := modproto.WrongTypeDetail(trimmed); d != "" {
			return "envelope field " + d
		}
	}
	return de.Detail
}

// decodeCode is the host code of a DecodeError on a module's stdout:
// CodeHostNoEnvelope when the process exited non-zero (or was killed)
// before writing any envelope (stdout empty or not starting with '{'),
// else de's own code (docs/protocol.md §5).
func decodeCode(de *modproto.DecodeError, stdout []byte, exitCode int) string {
	trimmed := bytes.TrimLeft(stdout, " \t\r\n")
	if exitCode != 0 && de.Code == modproto.CodeHostInvalidJSON && (len(trimmed) == 0 || trimmed[0] != '{') {
		return modproto.CodeHostNoEnvelope
	}
	return de.Code
}

// quoteStart quotes the first bytes of b as a Go string literal, so line
// breaks and control characters show as escapes, never act.
func quoteStart(b []byte) string {
	s := string(b)
	cut := ""
	if utf8.RuneCountInString(s) > noiseQuoteRunes {
		s, cut = string([]rune(s)[:noiseQuoteRunes]), "…"
	}
	return fmt.Sprintf("%q%s", s, cut)
}

// stderrTail is the last few non-empty lines of stderr joined with " | ",
// bounded; line breaks never reach a one-line reason.
func stderrTail(stderr string) string {
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > stderrTailLines {
		lines = lines[len(lines)-stderrTailLines:]
	}
	s := strings.Join(lines, " | ")
	if r := []rune(s); len(r) > stderrTailRunes {
		s = "…" + string(r[len(r)-stderrTailRunes:])
	}
	return s
}
