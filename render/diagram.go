package render

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
)

// Diagram languages [DiagramSource] knows.
const (
	DiagramMermaid  = "mermaid"
	DiagramGraphviz = "graphviz"
)

// mermaidKeywords are Mermaid's diagram types and statement words.
var mermaidKeywords = map[string]bool{
	"graph": true, "flowchart": true, "sequenceDiagram": true, "classDiagram": true,
	"stateDiagram": true, "stateDiagram-v2": true, "erDiagram": true, "gantt": true,
	"pie": true, "journey": true, "gitGraph": true, "mindmap": true, "timeline": true,
	"subgraph": true, "end": true, "participant": true, "actor": true, "loop": true,
	"alt": true, "else": true, "opt": true, "par": true, "note": true, "Note": true,
	"class": true, "classDef": true, "style": true, "linkStyle": true, "click": true,
	"section": true, "title": true, "dateFormat": true, "TD": true, "TB": true,
	"LR": true, "RL": true, "BT": true, "direction": true, "state": true,
}

// graphvizKeywords are the DOT language's keywords (case-insensitive in DOT).
var graphvizKeywords = map[string]bool{
	"graph": true, "digraph": true, "subgraph": true, "node": true, "edge": true, "strict": true,
}

// DiagramLanguage names the language of a diagram's source from its media
// type or, failing that, its first word: "mermaid", "graphviz" or "".
func DiagramLanguage(src []byte, mediaType string) string {
	switch baseMediaType(mediaType) {
	case "text/vnd.mermaid":
		return DiagramMermaid
	case "text/vnd.graphviz":
		return DiagramGraphviz
	}
	first := strings.Fields(string(src[:min(len(src), 256)]))
	if len(first) == 0 {
		return ""
	}
	w := strings.ToLower(first[0])
	switch {
	case w == "digraph" || w == "strict" || (w == "graph" && strings.Contains(string(src[:min(len(src), 256)]), "{")):
		return DiagramGraphviz
	case mermaidKeywords[first[0]] || w == "%%{init:":
		return DiagramMermaid
	}
	return ""
}

// DiagramSource renders Mermaid or Graphviz source with its keywords,
// strings, comments and arrows colored (unless o.NoColor) and each line
// numbered, sanitized and wrapped to o.Width. It draws no picture: a
// terminal cannot lay out a graph legibly, so the source is the honest view.
func DiagramSource(src []byte, lang string, o Options) string {
	width := o.width()
	p := o.colors()
	text := SanitizeText(string(src))
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	numW := len(fmt.Sprint(len(lines)))
	var b strings.Builder
	for i, line := range lines {
		gutter := o.style(p.muted).Render(fmt.Sprintf("%*d ", numW, i+1))
		body := highlightDiagramLine(line, lang, o, p)
		wrapped := strings.Split(ansi.Hardwrap(body, max(1, width-numW-1), true), "\n")
		for j, w := range wrapped {
			if j == 0 {
				b.WriteString(gutter)
			} else {
				b.WriteString(strings.Repeat(" ", numW+1))
			}
			b.WriteString(w)
			b.WriteByte('\n')
		}
	}
	return fitLines(b.String(), width)
}

// highlightDiagramLine colors one sanitized line of diagram source.
func highlightDiagramLine(line, lang string, o Options, p palette) string {
	if o.NoColor {
		return line
	}
	trimmed := strings.TrimSpace(line)
	if strings.HasPrefix(trimmed, "%%") || strings.HasPrefix(trimmed, "//") || strings.HasPrefix(trimmed, "#") {
		return o.style(p.muted).Render(line)
	}
	kw := mermaidKeywords
	if lang == DiagramGraphviz {
		kw = graphvizKeywords
	}
	var b strings.Builder
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(line) && line[j] != '"' {
				j++
			}
			j = min(j+1, len(line))
			b.WriteString(o.style(p.str).Render(line[i:j]))
			i = j
		case strings.ContainsRune("-=.<>o*x|", rune(c)) && i+1 < len(line) && strings.ContainsRune("-=.<>o*x|", rune(line[i+1])) && (c == '-' || c == '=' || c == '<' || c == '.'):
			j := i
			for j < len(line) && strings.ContainsRune("-=.<>ox*|", rune(line[j])) {
				j++
			}
			b.WriteString(o.style(p.accent).Render(line[i:j]))
			i = j
		case c == '[' || c == ']' || c == '{' || c == '}' || c == '(' || c == ')' || c == ';':
			b.WriteString(o.style(p.muted).Render(line[i : i+1]))
			i++
		case c == '_' || unicode.IsLetter(rune(c)):
			j := i
			for j < len(line) && (line[j] == '_' || line[j] == '-' || unicode.IsLetter(rune(line[j])) || unicode.IsDigit(rune(line[j]))) {
				j++
			}
			w := line[i:j]
			if kw[w] || (lang == DiagramGraphviz && kw[strings.ToLower(w)]) {
				b.WriteString(o.style(p.keyword).Render(w))
			} else {
				b.WriteString(w)
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// SVGInfo is what an SVG's root element says about its size.
type SVGInfo struct {
	// Width, Height and ViewBox are the root <svg> attributes as written.
	Width, Height, ViewBox string
	// Title is the first <title> element's text.
	Title string
	// Elements counts the elements in the document.
	Elements int
}

// ParseSVG reads the root attributes, title and element count of an SVG
// without rendering it. External entities are never resolved (encoding/xml
// does not fetch).
func ParseSVG(src []byte) (SVGInfo, error) {
	var info SVGInfo
	dec := xml.NewDecoder(bytes.NewReader(src))
	dec.Strict = false
	inTitle, root := false, true
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return info, nil
		}
		if err != nil {
			return info, fmt.Errorf("svg: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			info.Elements++
			if root {
				if t.Name.Local != "svg" {
					return info, fmt.Errorf("svg: root element is <%s>", t.Name.Local)
				}
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "width":
						info.Width = a.Value
					case "height":
						info.Height = a.Value
					case "viewBox":
						info.ViewBox = a.Value
					}
				}
				root = false
			}
			inTitle = t.Name.Local == "title" && info.Title == ""
		case xml.CharData:
			if inTitle {
				info.Title = strings.TrimSpace(string(t))
			}
		case xml.EndElement:
			inTitle = false
		}
	}
}
