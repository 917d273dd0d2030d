// Package words holds the few phrasings every layer shares, so a count or
// an age reads the same in the CLI, the history and the cockpit.
package words
