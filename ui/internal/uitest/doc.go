// Package uitest builds the cockpit's test fixtures: key presses, a
// settable clock, and runner values decoded from the project's own wire
// fixtures under testdata/ (a full descriptor and invoke envelopes, embedded
// so any package's tests can read them), so tests and golden frames need no
// subprocess and nothing outside the repository.
package uitest
