// Package form turns a capability's request JSON Schema into a tree of
// fields, and the fields back into the JSON value sent as the request's
// input; it draws nothing (ui/formview does). docs/internals.md "Forms"
// states the rules: drafts, order, unions, what is sent, the round trip.
package form
