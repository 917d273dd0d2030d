package cli

import (
	"errors"
	"fmt"
)

// Exit codes of every modbay command (docs/protocol.md §15).
const (
	// ExitOK: the command succeeded.
	ExitOK = 0
	// ExitModuleError: the module answered with a valid error envelope.
	ExitModuleError = 1
	// ExitUsage: bad flags or arguments, or a module/file that is not there.
	ExitUsage = 2
	// ExitApprovalRequired: the call needs approval and --yes was not given;
	// nothing ran (docs/protocol.md §11).
	ExitApprovalRequired = 3
	// ExitHostVerdict: the host refused the run or the module (spawn failed,
	// invalid JSON, protocol violation, timeout, output too large, artifact
	// refused, invalid descriptor, a bound of docs/protocol.md §14 hit, not
	// contained under sandbox: require).
	ExitHostVerdict = 4
	// ExitInputInvalid: the input does not validate against the request
	// schema; nothing ran.
	ExitInputInvalid = 5
	// ExitReplayDiff: `check --replay` found the module's outcomes differ
	// from its fixture (docs/protocol.md §15).
	ExitReplayDiff = 6
	// ExitCrash: modbay itself failed (a panic it caught, or a cockpit that
	// died any way under its supervising parent; the terminal restored): a
	// bug in modbay, never a verdict on the module (70, the sysexits
	// EX_SOFTWARE; internal/crash.ExitCode and internal/supervise.ExitCrash).
	ExitCrash = 70
)

// exitError carries an exit code out of a command's RunE.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err so Execute exits with code.
func withCode(code int, format string, a ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, a...)}
}

// silentExit ends the command with code without printing anything more (the
// command already reported).
func silentExit(code int) error { return &exitError{code: code} }

// codeOf maps an error returned by a command to an exit code: an exitError
// keeps its own, anything else (cobra's flag and argument errors) is usage.
func codeOf(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitUsage
}
