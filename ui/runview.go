package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/spinner"

	"modbay/modproto"
	"modbay/render"
	"modbay/runner"
	"modbay/ui/common"
)

// Stderr kept by the run view.
const (
	// stderrTailLines is how many of the last stderr lines the run view
	// keeps and shows.
	stderrTailLines = 200
	// stderrPartialMax bounds an unterminated stderr line, so a module
	// that never prints a newline cannot grow it without limit (bytes).
	stderrPartialMax = 4096
)

// runView is the screen of a run in flight.
type runView struct {
	com        *common.Common
	id         string
	plan       *runner.Plan
	cancel     context.CancelFunc
	started    time.Time
	lines      []string
	partial    string
	job        *runner.JobStatus
	pid        int
	cancelling bool
	done       bool
}

func newRunView(com *common.Common, p *runner.Plan, cancel context.CancelFunc) *runView {
	id := p.Request.RequestID
	if id == "" {
		id = modproto.NewRequestID()
	}
	return &runView{com: com, id: id, plan: p, cancel: cancel, started: com.Now()}
}

// event applies a live event.
func (r *runView) event(ev runner.Event) {
	if ev.PID != 0 {
		r.pid = ev.PID
	}
	if ev.Job != nil {
		r.job = ev.Job
	}
	if len(ev.Stderr) > 0 {
		r.addStderr(string(ev.Stderr))
	}
}

// addStderr appends a raw chunk, splitting it into lines.
func (r *runView) addStderr(chunk string) {
	parts := strings.Split(r.partial+chunk, "\n")
	r.partial = parts[len(parts)-1]
	for _, l := range parts[:len(parts)-1] {
		// A CRLF line end is a line end (as render.Sanitize reads it), so
		// the kept lines can be sanitized one window at a time.
		r.lines = append(r.lines, strings.TrimSuffix(l, "\r"))
	}
	if len(r.partial) > stderrPartialMax {
		// After the complete lines before it: the overlong line is the
		// chunk's last text.
		r.lines = append(r.lines, r.partial)
		r.partial = ""
	}
	if len(r.lines) > stderrTailLines {
		r.lines = r.lines[len(r.lines)-stderrTailLines:]
	}
}

// stderrTail returns the kept stderr (raw), for the result view when the
// result itself has none.
func (r *runView) stderrTail() string {
	s := strings.Join(r.lines, "\n")
	if r.partial != "" {
		if s != "" {
			s += "\n"
		}
		s += r.partial
	}
	return s
}

// View draws the run in w × h cells.
func (r *runView) View(sp spinner.Model, w, h int) string {
	st := r.com.Styles
	c := r.plan.Capability
	mod := ""
	if r.plan.Module != nil {
		mod = moduleName(r.plan.Module)
	}
	var lines []string
	state := "running"
	if r.cancelling {
		state = "cancelling…"
	}
	lines = append(lines, sp.View()+" "+st.Title.Render(state)+" "+render.SanitizeLine(mod)+st.Muted.Render(" › ")+render.SanitizeLine(common.TitleOr(c.Title, c.ID)))
	elapsed := r.com.Now().Sub(r.started)
	deadline := time.Duration(r.plan.Request.DeadlineMS) * time.Millisecond
	if deadline <= 0 {
		deadline = modproto.DefaultDeadlineMS * time.Millisecond
	}
	lines = append(lines, fmt.Sprintf("%s %.1fs / %ds", st.Label.Render("elapsed"), elapsed.Seconds(), int(deadline.Seconds())))
	lines = append(lines, st.Label.Render("request ")+st.ID.Render(r.id))
	if r.pid != 0 {
		lines = append(lines, st.Label.Render("pid     ")+fmt.Sprint(r.pid))
	}
	if j := r.job; j != nil {
		lines = append(lines, "", st.Subtitle.Render("Job")+" "+st.ID.Render(render.SanitizeLine(j.ID)))
		line := render.SanitizeLine(j.State)
		if j.Percent != nil {
			line += fmt.Sprintf(" %.0f%%", *j.Percent)
			line += " " + bar(*j.Percent, 20)
		}
		lines = append(lines, line)
		if j.Detail != "" {
			lines = append(lines, st.Muted.Render(render.SanitizeLine(j.Detail)))
		}
		lines = append(lines, st.Muted.Render(fmt.Sprintf("%d %s", j.Polls, common.Plural(j.Polls, "poll", "polls"))))
	}
	if r.cancelling {
		lines = append(lines, "", st.Warning.Render("Cancelling: the module's process tree is being stopped."))
	} else {
		lines = append(lines, "", st.Muted.Render("ctrl+c cancels the run"))
	}
	room := h - len(lines) - 2
	tail := r.stderrTail()
	if tail != "" && room > 0 {
		// Only the lines that fit are sanitized: this view is drawn on
		// every tick, and the run may have kept stderrTailLines long ones.
		lines = append(lines, "", st.Subtitle.Render("stderr"))
		lines = append(lines, strings.Split(cleanBlock(lastLines(tail, room)), "\n")...)
	}
	for i := range lines {
		lines[i] = common.Trunc(lines[i], w)
	}
	return strings.Join(lines, "\n")
}

// bar draws a percent as a w-cell bar.
func bar(pct float64, w int) string {
	n := int(pct / 100 * float64(w))
	n = max(0, min(n, w))
	return "[" + strings.Repeat("█", n) + strings.Repeat("·", w-n) + "]"
}
