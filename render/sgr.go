package render

import "strings"

// sgrRun is text drawn under one style (the SGR sequences in force, as
// written; "" for none).
type sgrRun struct {
	style string
	text  strings.Builder
}

// CompactSGR rewrites styled text so each line carries the least styling
// that draws the same: runs of text under the same style are merged (glamour
// wraps every word and every padding space in its own "ESC[38;5;252m …
// ESC[m", about 70 bytes of escapes per byte of text), and trailing spaces
// whose style has no background or reverse video are dropped. OSC 8
// hyperlinks are kept where they stand. The visible text is unchanged; a
// 1 MB markdown document renders to a tenth of the memory.
func CompactSGR(s string) string {
	var b strings.Builder
	b.Grow(len(s) / 4)
	for line := range strings.Lines(s) {
		body, nl := strings.CutSuffix(line, "\n")
		compactLine(&b, body)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// compactLine writes one compacted line to b.
func compactLine(b *strings.Builder, line string) {
	var runs []*sgrRun
	style := ""
	add := func(text string) {
		if n := len(runs); n > 0 && runs[n-1].style == style {
			runs[n-1].text.WriteString(text)
			return
		}
		r := &sgrRun{style: style}
		r.text.WriteString(text)
		runs = append(runs, r)
	}
	for i := 0; i < len(line); {
		if line[i] != 0x1b {
			j := strings.IndexByte(line[i:], 0x1b)
			if j < 0 {
				j = len(line) - i
			}
			add(line[i : i+j])
			i += j
			continue
		}
		rest := line[i:]
		switch {
		case strings.HasPrefix(rest, "\x1b["):
			j := 2
			for j < len(rest) && (rest[j] >= '0' && rest[j] <= '9' || rest[j] == ';' || rest[j] == ':') {
				j++
			}
			if j < len(rest) && rest[j] == 'm' {
				seq := rest[:j+1]
				if seq == "\x1b[m" || seq == "\x1b[0m" {
					style = ""
				} else {
					style += seq
				}
				i += j + 1
				continue
			}
			// Not SGR: keep it as text of its own (render never makes one).
			add(rest[:min(len(rest), j+1)])
			i += min(len(rest), j+1)
		case strings.HasPrefix(rest, "\x1b]"):
			// A hyperlink (OSC 8): keep whole, as an unmergeable run.
			end := strings.IndexAny(rest[2:], "\x07\x1b")
			n := len(rest)
			if end >= 0 {
				n = 2 + end + 1
				if rest[2+end] == 0x1b {
					n++
				}
			}
			runs = append(runs, &sgrRun{style: "\x00osc"})
			runs[len(runs)-1].text.WriteString(rest[:min(n, len(rest))])
			i += min(n, len(rest))
		default:
			add(rest[:1])
			i++
		}
	}
	// Drop trailing spaces that draw nothing.
	for len(runs) > 0 {
		r := runs[len(runs)-1]
		if r.style == "\x00osc" || hasBackground(r.style) {
			break
		}
		t := strings.TrimRight(r.text.String(), " ")
		if t != "" {
			r.text.Reset()
			r.text.WriteString(t)
			break
		}
		runs = runs[:len(runs)-1]
	}
	cur := ""
	for _, r := range runs {
		if r.style == "\x00osc" {
			b.WriteString(r.text.String())
			continue
		}
		if r.style != cur {
			if cur != "" {
				b.WriteString("\x1b[m")
			}
			b.WriteString(r.style)
			cur = r.style
		}
		b.WriteString(r.text.String())
	}
	if cur != "" {
		b.WriteString("\x1b[m")
	}
}

// hasBackground reports whether an SGR style paints a cell even where the
// text is a space: a background color or reverse video.
func hasBackground(style string) bool {
	for _, seq := range strings.Split(style, "\x1b[") {
		params := strings.Split(strings.TrimSuffix(seq, "m"), ";")
		for k := 0; k < len(params); k++ {
			switch p := params[k]; {
			case p == "7":
				return true
			case p == "48", len(p) == 2 && p[0] == '4' && p[1] >= '0' && p[1] <= '7', len(p) == 3 && p[:2] == "10":
				return true
			case p == "38":
				// Skip a foreground color's arguments (5;n or 2;r;g;b).
				if k+1 < len(params) && params[k+1] == "5" {
					k += 2
				} else if k+1 < len(params) && params[k+1] == "2" {
					k += 4
				}
			}
		}
	}
	return false
}
