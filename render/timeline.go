package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"math"
	"modbay/internal/words"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

const (
	// timelineBarMin is the narrowest duration bar column worth drawing; at
	// narrower widths the bars are left out and only the numbers remain.
	timelineBarMin = 10
	// timelineLabelMax bounds the label column so bars keep room.
	timelineLabelMax = 32
	// MaxTimelineEvents is the most events Timeline draws; a footer counts the
	// rest. A timeline is read, not scrolled through by the hundred thousand.
	MaxTimelineEvents = 2000
)

// TimelineEvent is one event of a timeline, its times in Unit since the
// timeline's origin (the earliest start).
type TimelineEvent struct {
	// Label names the event; State is an optional status word ("done").
	Label, State string
	// Start and End are offsets from the origin; End equals Start for an
	// instant.
	Start, End float64
}

// TimelineData is a parsed timeline.
type TimelineData struct {
	// Title and Subtitle describe the whole timeline when the source names
	// them (title; job_id and started_at).
	Title, Subtitle string
	// Unit is "ms", "s" or "" for unitless numbers.
	Unit string
	// Origin is the absolute time of offset 0 when the times were
	// timestamps or a started_at was given; zero otherwise.
	Origin time.Time
	// Total is the declared or measured span from the origin.
	Total float64
	// Events are sorted by Start.
	Events []TimelineEvent
}

// ErrNotTimeline says the JSON has no recognisable list of events.
var ErrNotTimeline = errors.New("timeline: no array of events with a time or start/end")

// timeline field names, most specific first.
var (
	tlLabels = []string{"label", "name", "title", "event", "summary", "description", "id"}
	tlStarts = []string{"start_ms", "start", "started_at", "begin", "from", "start_time", "time", "timestamp", "at", "ts", "date"}
	tlEnds   = []string{"end_ms", "end", "ended_at", "finish", "finished_at", "to", "end_time"}
	tlLists  = []string{"events", "items", "timeline", "spans", "steps"}
)

// ParseTimeline reads a timeline from JSON: an array of objects each with a
// label and a time or a start/end (numbers, or RFC 3339 timestamps), or an
// object holding such an array under events, items, timeline, spans or steps
// together with optional title, job_id, started_at, unit and duration_ms (the
// shape of the render-farm example).
func ParseTimeline(src []byte) (*TimelineData, error) {
	var top any
	if err := json.Unmarshal(src, &top); err != nil {
		return nil, fmt.Errorf("timeline: %w", err)
	}
	td := &TimelineData{}
	var list []any
	switch v := top.(type) {
	case []any:
		list = v
	case map[string]any:
		for _, k := range tlLists {
			if l, ok := v[k].([]any); ok {
				list = l
				break
			}
		}
		td.Title = str(v["title"])
		if id := str(v["job_id"]); id != "" {
			td.Subtitle = id
		}
		if u := str(v["unit"]); u == "ms" || u == "s" {
			td.Unit = u
		}
		if t, ok := parseTime(v["started_at"]); ok {
			td.Origin = t
		}
		if d, ok := v["duration_ms"].(float64); ok {
			td.Total, td.Unit = d, "ms"
		}
	}
	type raw struct {
		label, state string
		start, end   any
		endKey       string
		startKey     string
	}
	var rows []raw
	for _, e := range list {
		obj, ok := e.(map[string]any)
		if !ok {
			continue
		}
		r := raw{state: str(obj["state"])}
		if r.state == "" {
			r.state = str(obj["status"])
		}
		for _, k := range tlLabels {
			if s := str(obj[k]); s != "" {
				r.label = s
				break
			}
		}
		for _, k := range tlStarts {
			if x, ok := obj[k]; ok && x != nil {
				r.start, r.startKey = x, k
				break
			}
		}
		for _, k := range tlEnds {
			if x, ok := obj[k]; ok && x != nil {
				r.end, r.endKey = x, k
				break
			}
		}
		if r.start == nil {
			continue
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, ErrNotTimeline
	}
	// Times are either all numbers or all timestamps; mixed rows are dropped.
	_, numeric := rows[0].start.(float64)
	if numeric && td.Unit == "" {
		switch {
		case strings.HasSuffix(rows[0].startKey, "_ms"):
			td.Unit = "ms"
		case strings.HasSuffix(rows[0].startKey, "_s"):
			td.Unit = "s"
		}
	}
	var origin time.Time
	if !numeric {
		for _, r := range rows {
			if t, ok := parseTime(r.start); ok && (origin.IsZero() || t.Before(origin)) {
				origin = t
			}
		}
		td.Origin, td.Unit = origin, "ms"
	}
	offset := func(x any) (float64, bool) {
		if numeric {
			f, ok := x.(float64)
			return f, ok
		}
		t, ok := parseTime(x)
		return float64(t.Sub(origin).Milliseconds()), ok
	}
	for _, r := range rows {
		s, ok := offset(r.start)
		if !ok {
			continue
		}
		e := s
		if r.end != nil {
			if v, ok := offset(r.end); ok && v >= s {
				e = v
			}
		}
		label := r.label
		if label == "" {
			label = fmt.Sprintf("event %d", len(td.Events)+1)
		}
		td.Events = append(td.Events, TimelineEvent{Label: label, State: r.state, Start: s, End: e})
	}
	if len(td.Events) == 0 {
		return nil, ErrNotTimeline
	}
	sort.SliceStable(td.Events, func(i, j int) bool { return td.Events[i].Start < td.Events[j].Start })
	lo := td.Events[0].Start
	if numeric && lo > 0 && td.Origin.IsZero() && td.Total == 0 {
		// Plain numbers far from zero (epoch seconds): measure from the first.
		for i := range td.Events {
			td.Events[i].Start -= lo
			td.Events[i].End -= lo
		}
	}
	for _, e := range td.Events {
		td.Total = math.Max(td.Total, e.End)
	}
	return td, nil
}

// str returns v when it is a string, else "".
func str(v any) string {
	s, _ := v.(string)
	return s
}

// parseTime reads an RFC 3339 timestamp or a date.
func parseTime(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Timeline renders a JSON timeline ([ParseTimeline]) as a vertical list of
// events, one line each: the offset from the start, a marker, the label, a
// bar placed and sized on a shared scale, the duration and the state. The
// error is ParseTimeline's; the string is then [JSON] of src.
func Timeline(src []byte, o Options) (string, error) {
	td, err := ParseTimeline(src)
	if err != nil {
		out, jerr := JSON(src, o)
		if jerr != nil {
			return out, jerr
		}
		return out, err
	}
	return renderTimeline(td, o), nil
}

// FormatDuration formats d in unit as a short human duration: "850ms",
// "1.2s", "3m04s", and zero as "0s" (zero needs no finer unit); unitless
// values are printed as numbers.
func FormatDuration(d float64, unit string) string {
	switch unit {
	case "s":
		d *= 1000
	case "ms":
	default:
		return trimFloat(d)
	}
	switch {
	case d == 0:
		return "0s"
	case d < 1000:
		return trimFloat(d) + "ms"
	case d < 60_000:
		return fmt.Sprintf("%.1fs", d/1000)
	case d < 3_600_000:
		return fmt.Sprintf("%dm%02ds", int(d/60_000), int(d/1000)%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d/3_600_000), int(d/60_000)%60)
	}
}

// formatOffset formats an event's start as an offset from the timeline's
// origin: FormatDuration with a leading "+" ("+0s", "+400ms", "+1.2s"),
// so the column reads as time since the start, not as durations.
func formatOffset(d float64, unit string) string {
	return "+" + FormatDuration(d, unit)
}

// trimFloat prints f without a needless fraction.
func trimFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%.3g", f)
}

// renderTimeline draws td.
func renderTimeline(td *TimelineData, o Options) string {
	width := o.width()
	p := o.colors()
	var b strings.Builder
	if td.Title != "" {
		b.WriteString(ansi.Truncate(o.style(p.accent).Bold(!o.NoColor).Render(SanitizeLine(td.Title)), width, ellipsis))
		b.WriteByte('\n')
	}
	var sub []string
	if td.Subtitle != "" {
		sub = append(sub, SanitizeLine(td.Subtitle))
	}
	if !td.Origin.IsZero() {
		sub = append(sub, "started "+td.Origin.UTC().Format("2006-01-02 15:04:05Z"))
	}
	sub = append(sub, fmt.Sprintf("%d %s", len(td.Events), words.Plural(len(td.Events), "event", "events")),
		"total "+FormatDuration(td.Total, td.Unit))
	b.WriteString(ansi.Wrap(o.style(p.muted).Render(strings.Join(sub, " · ")), width, ""))
	b.WriteString("\n\n")

	events := td.Events[:min(len(td.Events), MaxTimelineEvents)]
	offW, durW, labelW, stateW := 0, 0, 0, 0
	for _, e := range events {
		offW = max(offW, len(formatOffset(e.Start, td.Unit)))
		durW = max(durW, len(FormatDuration(e.End-e.Start, td.Unit)))
		labelW = max(labelW, cellWidth(SanitizeLine(e.Label)))
		stateW = max(stateW, cellWidth(SanitizeLine(e.State)))
	}
	labelW = min(labelW, timelineLabelMax)
	// offset ␣ marker ␣ label ␣ bar ␣ duration ␣ state
	fixed := offW + 3 + 1 + 1 + durW + 1 + stateW
	barW := width - fixed - labelW
	if barW < timelineBarMin {
		labelW = max(8, labelW-(timelineBarMin-barW))
		barW = width - fixed - labelW
	}
	if barW < timelineBarMin {
		barW = 0
	}
	total := math.Max(td.Total, 1e-9)
	for _, e := range events {
		marker, dur := "●", FormatDuration(e.End-e.Start, td.Unit)
		if e.End == e.Start {
			marker, dur = "◆", ""
		}
		b.WriteString(o.style(p.muted).Render(fmt.Sprintf("%*s", offW, formatOffset(e.Start, td.Unit))))
		b.WriteString(" " + o.style(p.accent).Render(marker) + " ")
		label := ansi.Truncate(SanitizeLine(e.Label), labelW, ellipsis)
		b.WriteString(label + strings.Repeat(" ", labelW-cellWidth(label)))
		if barW > 0 {
			from := int(e.Start / total * float64(barW))
			to := int(math.Ceil(e.End / total * float64(barW)))
			from, to = min(from, barW-1), min(max(to, from+1), barW)
			bar := strings.Repeat(" ", from) + strings.Repeat("█", to-from) + strings.Repeat(" ", barW-to)
			if marker == "◆" {
				bar = strings.Repeat(" ", from) + "│" + strings.Repeat(" ", barW-from-1)
			}
			b.WriteString(" " + o.style(p.key).Render(bar))
		}
		b.WriteString(" " + fmt.Sprintf("%*s", durW, dur))
		if e.State != "" {
			b.WriteString(" " + o.style(stateColor(e.State, p)).Render(SanitizeLine(e.State)))
		}
		b.WriteByte('\n')
	}
	if len(events) < len(td.Events) {
		b.WriteString(o.style(p.muted).Render(fmt.Sprintf("showing %d of %d events", len(events), len(td.Events))))
		b.WriteByte('\n')
	}
	return fitLines(b.String(), width)
}

// stateColor colors a state word: failures red-ish, success green, others muted.
func stateColor(state string, p palette) color.Color {
	switch strings.ToLower(state) {
	case "done", "ok", "succeeded", "success", "complete", "completed":
		return p.str
	case "failed", "error", "cancelled", "canceled":
		return p.keyword
	}
	return p.muted
}
