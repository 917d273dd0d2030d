package cli

import (
	"errors"
	"fmt"

	"modbay/contain"
	"modbay/runner"
	"modbay/schema"
)

// Outcomes of an invoke that did not run, as --json reports them in
// "outcome" (docs/protocol.md §15).
const (
	outcomeUsage            = "usage"
	outcomeInputInvalid     = "input_invalid"
	outcomeBroken           = "broken"
	outcomeSchemaInvalid    = "schema_invalid"
	outcomeDisabled         = "disabled"
	outcomeApprovalRequired = "approval_required"
	outcomeNotRun           = "not_run"
	// outcomeBound: checking the input hit a bound of docs/protocol.md §14.
	outcomeBound = "bound"
	// outcomeNotContained: config says sandbox: require and the module
	// could not be fully contained on this machine.
	outcomeNotContained = "not_contained"
)

// refusalRule is one row of refusalRules: which runner errors it matches,
// the outcome and exit code they mean, and whether the message says
// "nothing ran" after the error.
type refusalRule struct {
	match      func(error) bool
	outcome    string
	code       int
	nothingRan bool
}

// refusalRules is the one table from the runner's errors (Load, Plan, Run)
// to an invoke's outcome and exit code; the first match wins, and an error
// no row matches is a usage error (an unknown capability, a module that is
// not there). A module at fault (broken, a schema that does not compile,
// disabled) is a host verdict, never "usage".
var refusalRules = []refusalRule{
	{func(err error) bool { return errors.Is(err, contain.ErrNotContained) }, outcomeNotContained, ExitHostVerdict, true},
	{func(err error) bool { return errors.As(err, new(*runner.InputError)) }, outcomeInputInvalid, ExitInputInvalid, true},
	{func(err error) bool { return errors.Is(err, runner.ErrApprovalRequired) }, outcomeApprovalRequired, ExitApprovalRequired, true},
	{func(err error) bool { return errors.Is(err, runner.ErrBroken) }, outcomeBroken, ExitHostVerdict, true},
	{func(err error) bool { return errors.As(err, new(*runner.SchemaError)) }, outcomeSchemaInvalid, ExitHostVerdict, true},
	{schema.IsBound, outcomeBound, ExitHostVerdict, true},
	{func(err error) bool { return errors.Is(err, schema.ErrCancelled) }, outcomeNotRun, ExitHostVerdict, true},
	{func(err error) bool { return errors.Is(err, runner.ErrDisabled) }, outcomeDisabled, ExitHostVerdict, true},
	{func(err error) bool { return errors.As(err, new(*notStarted)) }, outcomeNotRun, ExitHostVerdict, false},
}

// notStarted wraps an error of Host.Run, which means nothing could be
// attempted (a state directory that cannot be made, a request that cannot
// be encoded): a host verdict, not a usage error.
type notStarted struct{ err error }

func (e *notStarted) Error() string { return e.err.Error() }
func (e *notStarted) Unwrap() error { return e.err }

// refusal is an invoke that ended before the module ran: what --json
// prints as its outcome, and the exit code. Reasons lists each violation or
// approval reason.
type refusal struct {
	Outcome string
	Code    int
	Message string
	Reasons []string
	// Err is the runner error it came from, nil for a refusal of the
	// command line itself (--deadline, --input).
	Err error
	// subject is "module capability", sanitized, for the text account of
	// an approval refusal.
	subject string
	// Enforcement is what containment could apply, when sandbox: require
	// refused a started process (outcomeNotContained); nil otherwise.
	Enforcement *contain.Enforcement
}

// Error implements error: the message.
func (r *refusal) Error() string { return r.Message }

// Unwrap returns the runner error.
func (r *refusal) Unwrap() error { return r.Err }

// usageRefusal refuses the command line itself (a bad flag value).
func usageRefusal(format string, a ...any) *refusal {
	return &refusal{Outcome: outcomeUsage, Code: ExitUsage, Message: fmt.Sprintf(format, a...)}
}

// refusalOf classifies err, returned by the runner before anything ran,
// through refusalRules. An *InputError gets its violations as reasons and
// a message naming the schema.
func refusalOf(err error) *refusal {
	r := &refusal{Outcome: outcomeUsage, Code: ExitUsage, Message: err.Error(), Err: err}
	for _, rule := range refusalRules {
		if rule.match(err) {
			r.Outcome, r.Code = rule.outcome, rule.code
			if rule.nothingRan {
				r.Message += "; nothing ran"
			}
			break
		}
	}
	var ie *runner.InputError
	if errors.As(err, &ie) {
		r.Message = fmt.Sprintf("input is invalid against request schema %s; nothing ran", ie.Schema)
		for _, v := range ie.Violations {
			r.Reasons = append(r.Reasons, v.Error())
		}
	}
	var nc *notContainedError
	if errors.As(err, &nc) {
		r.Reasons = nc.Gaps
	}
	return r
}

// resultCode is the exit code of a run that happened: a host verdict, the
// module's error envelope, or success.
func resultCode(res *runner.Result) int {
	switch {
	case res.Host != nil:
		return ExitHostVerdict
	case !res.OK():
		return ExitModuleError
	}
	return ExitOK
}
