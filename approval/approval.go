package approval

import (
	"bufio"
	"encoding/json"
	"errors"
	"time"
)

// Bounds of the socket.
const (
	// MaxMessage bounds one JSON line in bytes, either way.
	MaxMessage = 1 << 20
	// MaxOpen bounds the questions a cockpit holds open at once; a serve
	// process asking beyond it is answered with ErrFull's text.
	MaxOpen = 64
	// SocketsDir is the folder of the cockpits' sockets under <home>/serve.
	SocketsDir = "cockpits"
)

// Decision is a person's answer.
type Decision string

// The answers a cockpit gives.
const (
	Once    Decision = "once"
	Session Decision = "session"
	Deny    Decision = "deny"
)

// Root is one root a call would be given.
type Root struct {
	Name string `json:"name"`
	Mode string `json:"mode"`
	Path string `json:"path"`
}

// Effects are a capability's declared effects (docs/protocol.md §6), as
// a question carries them.
type Effects struct {
	Local          bool   `json:"local"`
	Network        bool   `json:"network"`
	ExternalWrites bool   `json:"external_writes"`
	Provider       string `json:"provider"`
	CostKnown      bool   `json:"cost_known"`
}

// Question is one call waiting for a person's approval, as the serve
// process tells it. Every string but ID came from an agent or a module:
// a cockpit sanitizes each before the terminal.
type Question struct {
	// ID names the question ("apr_" and hex), quoted back to the agent.
	ID string `json:"id"`
	// Client is the agent's declared name (sanitized, at most 64 bytes).
	Client string `json:"client"`
	// Tool is the served tool name; Module and Capability what it runs.
	Tool       string `json:"tool"`
	Module     string `json:"module"`
	Capability string `json:"capability"`
	// ModuleName, Title, Effects and LongRunning are the descriptor's
	// facts the question is about, as the serve process planned the call
	// (docs/protocol.md §6): the cockpit shows these, never its own copy,
	// which may predate the module. Effects nil: the facts were not sent.
	ModuleName  string   `json:"module_name,omitempty"`
	Title       string   `json:"title,omitempty"`
	Effects     *Effects `json:"effects,omitempty"`
	LongRunning bool     `json:"long_running,omitempty"`
	// Input is the call's input with its secret values masked.
	Input json.RawMessage `json:"input"`
	// Reasons say why approval is needed (docs/protocol.md §11).
	Reasons       []string `json:"reasons"`
	Network       []string `json:"network,omitempty"`
	Credentials   []string `json:"credentials,omitempty"`
	PaidProviders []string `json:"paid_providers,omitempty"`
	Roots         []Root   `json:"roots,omitempty"`
	// DeadlineMS is the call's deadline in milliseconds.
	DeadlineMS int64 `json:"deadline_ms"`
	// Asked is when the agent called; PID is the serve process's.
	Asked time.Time `json:"asked"`
	PID   int       `json:"pid"`
}

// Answer is a cockpit's answer to question ID.
type Answer struct {
	ID       string   `json:"id"`
	Decision Decision `json:"decision"`
	// By says who answered ("the cockpit (pid N)").
	By string `json:"by"`
}

// message is one line on the socket: exactly one field is set.
type message struct {
	Ask      *Question `json:"ask,omitempty"`
	Withdraw string    `json:"withdraw,omitempty"`
	Answer   *Answer   `json:"answer,omitempty"`
	// Refused is a cockpit's word that it will not show the question
	// (too many open); the serve process counts it as no answer.
	Refused string `json:"refused,omitempty"`
}

// ErrNoCockpit is Ask's error when no cockpit of the home is running.
var ErrNoCockpit = errors.New("no cockpit of this home is running")

// readMessage reads one bounded JSON line.
func readMessage(r *bufio.Reader) (message, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxMessage {
			return message{}, errors.New("approval socket: message over MaxMessage")
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return message{}, err
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			return message{}, err
		}
		return m, nil
	}
}

func encode(m message) []byte {
	b, _ := json.Marshal(m)
	return append(b, '\n')
}

// valid reports whether d is one of the decisions.
func valid(d Decision) bool { return d == Once || d == Session || d == Deny }
