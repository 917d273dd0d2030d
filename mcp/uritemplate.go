package mcp

import (
	"fmt"
	"net/url"
	"strings"
)

// A resource template's URI is an RFC 6570 URI template. Its variables
// become a form's string fields, and the URI is expanded from them, up to
// level 3 (operators + # . / ; ? &; a prefix :n or explode * is taken as
// the plain variable).

// maxTemplateVars bounds the variables of one URI template.
const maxTemplateVars = maxPromptArgs

// templateVar is one variable of a URI template; required when its
// expression is part of the path (no ?, & or ; operator).
type templateVar struct {
	name     string
	required bool
}

// templateExpr is one {…} expression: its operator (0 for none) and
// variable names.
type templateExpr struct {
	op   byte
	vars []string
}

// parseTemplate splits t into literal parts and expressions: parts has
// one more element than exprs.
func parseTemplate(t string) (parts []string, exprs []templateExpr, err error) {
	rest := t
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			if strings.IndexByte(rest, '}') >= 0 {
				return nil, nil, fmt.Errorf("URI template %q has a } without {", t)
			}
			return append(parts, rest), exprs, nil
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return nil, nil, fmt.Errorf("URI template %q has an unclosed {", t)
		}
		parts = append(parts, rest[:i])
		body := rest[i+1 : i+j]
		var e templateExpr
		if body != "" && strings.IndexByte("+#./;?&", body[0]) >= 0 {
			e.op, body = body[0], body[1:]
		}
		for _, v := range strings.Split(body, ",") {
			v = strings.TrimSuffix(v, "*")
			if k := strings.IndexByte(v, ':'); k >= 0 {
				v = v[:k]
			}
			if v == "" {
				return nil, nil, fmt.Errorf("URI template %q has an empty variable", t)
			}
			e.vars = append(e.vars, v)
		}
		exprs = append(exprs, e)
		rest = rest[i+j+1:]
	}
}

// templateVars is t's variables in order of first use.
func templateVars(t string) ([]templateVar, error) {
	_, exprs, err := parseTemplate(t)
	if err != nil {
		return nil, err
	}
	var out []templateVar
	seen := map[string]int{}
	for _, e := range exprs {
		for _, v := range e.vars {
			req := e.op != '?' && e.op != '&' && e.op != ';'
			if i, ok := seen[v]; ok {
				out[i].required = out[i].required || req
				continue
			}
			if len(out) == maxTemplateVars {
				return nil, fmt.Errorf("more than %d variables", maxTemplateVars)
			}
			seen[v] = len(out)
			out = append(out, templateVar{name: v, required: req})
		}
	}
	return out, nil
}

// expandTemplate expands t with vals (RFC 6570 §3.2, string values);
// a variable not in vals is undefined and left out. A required variable
// left out is an error, so no URI with a hole is read.
func expandTemplate(t string, vals map[string]string) (string, error) {
	parts, exprs, err := parseTemplate(t)
	if err != nil {
		return "", err
	}
	vars, _ := templateVars(t)
	for _, v := range vars {
		if _, ok := vals[v.name]; v.required && !ok {
			return "", fmt.Errorf("the URI template %q needs %s", t, v.name)
		}
	}
	var b strings.Builder
	for i, e := range exprs {
		b.WriteString(parts[i])
		first, sep, named, ifEmpty, reserved := "", ",", false, "", false
		switch e.op {
		case '+':
			reserved = true
		case '#':
			first, reserved = "#", true
		case '.':
			first, sep = ".", "."
		case '/':
			first, sep = "/", "/"
		case ';':
			first, sep, named = ";", ";", true
		case '?':
			first, sep, named, ifEmpty = "?", "&", true, "="
		case '&':
			first, sep, named, ifEmpty = "&", "&", true, "="
		}
		n := 0
		for _, v := range e.vars {
			val, ok := vals[v]
			if !ok {
				continue
			}
			if n == 0 {
				b.WriteString(first)
			} else {
				b.WriteString(sep)
			}
			n++
			if named {
				b.WriteString(v)
				if val == "" {
					b.WriteString(ifEmpty)
					continue
				}
				b.WriteByte('=')
			}
			b.WriteString(encodeValue(val, reserved))
		}
	}
	b.WriteString(parts[len(parts)-1])
	return b.String(), nil
}

// encodeValue percent-encodes s: everything but unreserved characters,
// or (reserved) but unreserved and reserved ones.
func encodeValue(s string, reserved bool) string {
	if !reserved {
		return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && (isUnreserved(c) || strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
