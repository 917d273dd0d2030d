// Package runnertest provides an in-memory runner.Driver and runner.Source
// for tests: a module that lives in the test's own process, so a test can
// drive runner.Host's planning, approval, grants, envelope and artifact
// checks and staging end to end, and play a module that streams events,
// asks the person mid-call, hangs until cancelled, returns content blocks
// or breaks its session — what an MCP server will do — without spawning
// anything. Like net/http/httptest, it is for tests only.
package runnertest
