package cli

import (
	"strings"
	"testing"
)

// Invoke refuses a number no reader can hold as it
// refuses any invalid input (exit 5, nothing ran), naming the number as
// typed; there is no flag past it, as for a malformed format.
func TestInvokeRefusesNumbersNoReaderHolds(t *testing.T) {
	home := demo(t)
	for in, want := range map[string]string{
		`{"max_files":1e999}`:                "/max_files: 1e999 is too large for any reader",
		`{"max_files":12345678901234567890}`: "/max_files: 12345678901234567890 loses digits in most readers",
		`{"title":"x","extra":[1e-400]}`:     "1e-400 is too small for any reader",
	} {
		code, out, stderr := run(t, "--home", home, "invoke", "notes", "notes.report", "--input", in)
		if code != ExitInputInvalid || !strings.Contains(stderr, want) || !strings.Contains(stderr, "nothing ran") {
			t.Errorf("--input %s: exit %d, want %d with %q\nstdout %s\nstderr %s", in, code, ExitInputInvalid, want, out, stderr)
		}
	}
}
