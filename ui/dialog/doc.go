// Package dialog holds the cockpit's dialogs. They sit on the root model's
// stack, take every key while on top, and answer with typed actions
// (ActionApprove, ActionDeny, ActionSubmitText, ActionClose), as
// charmbracelet/crush internal/ui/dialog does.
package dialog
