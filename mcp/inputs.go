package mcp

import (
	"fmt"
	"strings"

	"modbay/config"
)

// InputEnvPrefix starts the host variable a VS Code prompted input
// (${input:id}) is read from when a server starts: MODBAY_INPUT_ and the
// id upper-cased, every character but letters and digits made '_'
// (${input:github-token} → MODBAY_INPUT_GITHUB_TOKEN). Its value is
// never written to disk.
const InputEnvPrefix = "MODBAY_INPUT_"

// InputEnv is the host variable input id is read from (InputEnvPrefix).
func InputEnv(id string) string {
	var b strings.Builder
	b.WriteString(InputEnvPrefix)
	for _, r := range strings.ToUpper(id) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// expand is v with ${NAME} and ${NAME:-default} expanded from lookup
// (config.ExpandVars; an unset one stays as written) and every
// ${input:id} replaced by its InputEnv variable. An input without its
// variable is an error naming the variable to set: the literal reference
// never reaches the server.
func expand(v string, lookup func(string) (string, bool)) (string, error) {
	out, _ := config.ExpandVars(v, lookup)
	var missing []string
	out = inputRef().ReplaceAllStringFunc(out, func(ref string) string {
		id := inputRef().FindStringSubmatch(ref)[1]
		if val, ok := lookup(InputEnv(id)); ok {
			return val
		}
		missing = append(missing, fmt.Sprintf("${input:%s} (set %s)", id, InputEnv(id)))
		return ref
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("needs the prompted input %s", strings.Join(missing, ", "))
	}
	return out, nil
}
