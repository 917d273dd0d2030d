package supervise

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// resetSequences undo every mode Bubble Tea v2 may have set on the
// terminal, in the order its renderer's close does: synchronized output
// first (a frame cut short would hold the rest), keyboard enhancements
// popped on the screen that pushed them, then the alternate screen left
// and the cursor, paste, focus, mouse, title and cursor-shape modes reset.
// Colours are not reset: the cockpit sets none, and a person's own would be
// lost.
var resetSequences = strings.Join([]string{
	ansi.ResetModeSynchronizedOutput,
	ansi.ResetStyle,
	ansi.ResetModifyOtherKeys,
	ansi.PopKittyKeyboard(1),
	ansi.ResetModeAltScreenSaveCursor,
	ansi.ShowCursor,
	ansi.ResetModeBracketedPaste,
	ansi.ResetModeFocusEvent,
	ansi.ResetModeMouseNormal,
	ansi.ResetModeMouseButtonEvent,
	ansi.ResetModeMouseAnyEvent,
	ansi.ResetModeMouseExtSgr,
	ansi.ResetModeUnicodeCore,
	ansi.SetWindowTitle(""),
	ansi.SetCursorStyle(0),
	"\r",
}, "")
