package runner

import (
	"strings"
	"testing"

	"modbay/modproto"
	"modbay/schema"
)

// TestMaskingOptionsMaskEveryEvent: every live event a module's words
// reach (stderr, progress, a log line, a job's id, detail and raw
// object) and every raw exchange frame is masked before the caller sees
// it; a masked job id keeps its handle for polls (docs/protocol.md §12).
func TestMaskingOptionsMaskEveryEvent(t *testing.T) {
	echoes := []schema.Echo{{Pointer: "/api_key", Why: "writeOnly", Value: "sk-live-4242"}}
	var got []Event
	var frames []Frame
	opts := maskingOptions(RunOptions{Events: func(ev Event) { got = append(got, ev) }, Record: func(f Frame) { frames = append(frames, f) }}, echoes)
	opts.Events(Event{Stderr: []byte("key sk-live-4242\n")})
	opts.Events(Event{Progress: &Progress{Message: "at sk-live-4242"}})
	opts.Events(Event{Log: &LogLine{Text: "logged sk-live-4242"}})
	job := &JobStatus{ID: "Jsk-live-4242", Detail: "on sk-live-4242", Raw: []byte(`{"job_id":"Jsk-live-4242"}`)}
	opts.Events(Event{Job: job})
	opts.Record(Frame{Data: []byte(`{"job_id":"Jsk-live-4242"}`)})
	var all strings.Builder
	for _, ev := range got {
		all.Write(ev.Stderr)
		if ev.Progress != nil {
			all.WriteString(ev.Progress.Message)
		}
		if ev.Log != nil {
			all.WriteString(ev.Log.Text)
		}
		if ev.Job != nil {
			all.WriteString(ev.Job.ID + ev.Job.Detail + string(ev.Job.Raw))
		}
	}
	for _, f := range frames {
		all.Write(f.Data)
	}
	if s := all.String(); strings.Contains(s, "sk-live-4242") || strings.Count(s, echoes[0].Label()) != 7 {
		t.Fatalf("masked events:\n%s", s)
	}
	j := got[3].Job
	if j.Handle != "Jsk-live-4242" || j.PollID() != "Jsk-live-4242" || len(j.Secrets) != 1 || job.ID != "Jsk-live-4242" {
		t.Errorf("masked job %+v (the caller's %+v)", j, job)
	}
}

// TestSecretInNamesRefused: secretIn names the field holding a secret,
// and maskArtifact masks every field.
func TestSecretInNamesRefused(t *testing.T) {
	echoes := []schema.Echo{{Pointer: "/k", Why: "writeOnly", Value: "hunter22"}}
	for field, a := range map[string]modproto.Artifact{
		"id": {ID: "x-hunter22"}, "path": {ID: "p", Path: "hunter22.txt"},
		"media type": {ID: "m", MediaType: "text/plain; charset=hunter22"}, "presentation": {ID: "r", Presentation: "hunter22"},
	} {
		why := secretIn(a, echoes)
		if !strings.Contains(why, "its "+field+" holds a secret of the input (writeOnly /k)") || strings.Contains(why, "hunter22") {
			t.Errorf("%s: %q", field, why)
		}
	}
	if why := secretIn(modproto.Artifact{ID: "t", Title: "for hunter22"}, echoes); why != "" {
		t.Errorf("a title refused: %q", why)
	}
	a := modproto.Artifact{ID: "t", Title: "for hunter22"}
	maskArtifact(&a, echoes)
	if a.Title != "for "+echoes[0].Label() {
		t.Errorf("title %q", a.Title)
	}
}
