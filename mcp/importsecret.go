package mcp

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// secretName matches env and header names that usually hold a secret.
var secretName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(token|secret|passw|api[_-]?key|apikey|private[_-]?key|credential|auth)`)
})

// minSecretLen is the shortest value taken for a secret by its shape
// alone (a long run of letters, digits and token punctuation).
const minSecretLen = 20

// secretShape matches a value shaped like a token.
var secretShape = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_\-\.+/=:]+$`) })

// looksSecret reports whether env or header name's value v looks like a
// secret written literally: a ${...} reference is not one.
func looksSecret(name, v string) bool {
	if v == "" || strings.Contains(v, "${") {
		return false
	}
	if secretName().MatchString(name) {
		return true
	}
	return len(v) >= minSecretLen && secretShape().MatchString(v) && strings.ContainsAny(v, "0123456789") &&
		strings.ContainsAny(strings.ToLower(v), "abcdefghijklmnopqrstuvwxyz")
}

// ReferenceSecrets keeps literal secrets out of config.yaml: each env or
// header value of im that looks like a secret and equals a host
// variable's value (environ, "KEY=value") is replaced by ${KEY} — a
// header "Bearer <secret>" keeps its scheme — and a note says so; one no
// host variable holds is kept, with a note warning that it is written as
// it is. Host variables are matched on whole values only.
func ReferenceSecrets(im *Imported, environ []string) {
	byValue := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" || len(v) < 8 {
			continue // short values match by accident
		}
		if prev, dup := byValue[v]; !dup || k < prev {
			byValue[v] = k
		}
	}
	fix := func(kind string, m map[string]string) {
		for _, name := range slices.Sorted(maps.Keys(m)) {
			v := m[name]
			scheme, secret := "", v
			if s, rest, ok := strings.Cut(v, " "); ok && kind == "header" && (strings.EqualFold(s, "Bearer") || strings.EqualFold(s, "Basic") || strings.EqualFold(s, "token")) {
				scheme, secret = s+" ", rest
			}
			if !looksSecret(name, secret) {
				continue
			}
			if host, ok := byValue[secret]; ok {
				m[name] = scheme + "${" + host + "}"
				im.Notes = append(im.Notes, fmt.Sprintf("%s %s: written as ${%s}, the host variable holding the same value, not the secret itself", kind, name, host))
				continue
			}
			im.Notes = append(im.Notes, fmt.Sprintf("%s %s looks like a secret and is written to config.yaml as it is: put it in a host variable and write ${NAME} instead", kind, name))
		}
	}
	fix("env", im.Server.Env)
	fix("header", im.Server.Headers)
}
