package runner

import (
	"context"
	"encoding/json"
	"reflect"
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
	opts, _ := maskingOptions(RunOptions{Events: func(ev Event) { got = append(got, ev) }, Record: func(f Frame) { frames = append(frames, f) }}, echoes)
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

// fillStrings sets every settable string of v (walking structs,
// pointers, slices and maps of any) to s+"<field>", so a field added to
// modproto's types is covered without naming it.
func fillStrings(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() && v.CanSet() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		if !v.IsNil() {
			fillStrings(v.Elem(), s)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				fillStrings(f, s+v.Type().Field(i).Name)
			}
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage(nil)) {
			v.SetBytes([]byte(`{"r":"` + s + `","` + s + `":1}`))
			return
		}
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		}
		for i := range v.Len() {
			fillStrings(v.Index(i), s)
		}
	case reflect.Map:
		if v.Type() == reflect.TypeOf(map[string]any(nil)) {
			v.Set(reflect.ValueOf(map[string]any{"d": s, s: []any{s}}))
		}
	case reflect.String:
		v.SetString(s)
	}
}

// walkJSON calls f with every key and string of the JSON value b.
func walkJSON(t *testing.T, b []byte, f func(string)) {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			f(x)
		case []any:
			for _, c := range x {
				walk(c)
			}
		case map[string]any:
			for k, c := range x {
				f(k)
				walk(c)
			}
		}
	}
	walk(v)
}

// TestMaskResultEveryEnvelopeString: every free-form string of the
// envelope (header fields, result, warnings, execution and its
// artifacts, the error's code, message and details), filled by
// reflection with the secret, comes out masked: the encoded envelope,
// walked key by key and string by string, holds it nowhere. A code
// keeps one token ("c_masked"); a protocol code is kept.
func TestMaskResultEveryEnvelopeString(t *testing.T) {
	const secret = "KKKKsecK"
	echoes := []schema.Echo{{Pointer: "/k", Why: "writeOnly", Value: secret}}
	env := &modproto.Envelope{}
	fillStrings(reflect.ValueOf(env), "c_"+secret)
	job := &JobStatus{ID: "j", State: "st" + secret}
	res := &Result{Envelope: env, HandleEnvelope: env, Job: job}
	maskResult(res, echoes)
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	walkJSON(t, b, func(s string) {
		n++
		if strings.Contains(s, secret) {
			t.Errorf("unmasked: %q", s)
		}
	})
	if n < 20 {
		t.Errorf("walked %d strings of %s", n, b)
	}
	if env.Error.Code != "c_maskedErrorCode" {
		t.Errorf("code %q, want one token", env.Error.Code)
	}
	if job.State != "st"+echoes[0].Label() {
		t.Errorf("job state %q", job.State)
	}
	e := &modproto.Error{Code: "timeout"}
	maskResult(&Result{Envelope: &modproto.Envelope{Error: e}}, []schema.Echo{{Pointer: "/k", Why: "writeOnly", Value: "time"}})
	if e.Code != "timeout" {
		t.Errorf("protocol code masked: %q", e.Code)
	}
}

// TestMaskingOptionsJoinSplitStderr: a secret split across stderr
// chunks reaches the caller masked, the chunks joined as written; the
// end held back is sent when the run ends, or dropped when the stderr
// was cut there; a stderr frame cut between its head and tail loses the
// start of a secret before the cut and the end of one after it.
func TestMaskingOptionsJoinSplitStderr(t *testing.T) {
	const k = "KKKKsecK"
	echoes := []schema.Echo{{Pointer: "/k", Why: "writeOnly", Value: k}}
	for _, cut := range []bool{false, true} {
		var got strings.Builder
		var frames []Frame
		opts, done := maskingOptions(RunOptions{Events: func(ev Event) { got.Write(ev.Stderr) }, Record: func(f Frame) { frames = append(frames, f) }}, echoes)
		for _, c := range []string{"live " + k[:5], k[5:] + " tail\n", "a KK", "KK", "sec", "K!\n", "end " + k[:4]} {
			opts.Events(Event{Stderr: []byte(c)})
		}
		done(cut)
		want := "live " + echoes[0].Label() + " tail\na " + echoes[0].Label() + "!\nend "
		if !cut {
			want += k[:4]
		}
		if got.String() != want {
			t.Errorf("cut %v: stderr seen\n%q, want\n%q", cut, got.String(), want)
		}
		mark := StderrDropMark + "99 bytes of stderr not kept]…"
		opts.Record(Frame{Kind: FrameStderr, Data: []byte("head " + k[:5] + mark + k[3:] + " tail")})
		if d := string(frames[0].Data); d != "head "+mark+" tail" {
			t.Errorf("the frame cut between head and tail is %q", d)
		}
	}
}

// TestElicitationQuestionMasked: a server's question that echoes the
// run's secret reaches the person masked — message, URL, the schema's
// titles and descriptions, a sampling request's prompt, messages and
// hints — while the answer is judged by the schema as sent.
func TestElicitationQuestionMasked(t *testing.T) {
	const k = "KKKKsecK"
	echoes := []schema.Echo{{Pointer: "/k", Why: "writeOnly", Value: k}}
	var asked []Elicitation
	ask := hostElicitor(func(_ context.Context, e Elicitation) (ElicitAnswer, error) {
		asked = append(asked, e)
		return ElicitAnswer{Action: ElicitAccept, Content: json.RawMessage(`{"n":"` + k + `"}`)}, nil
	}, echoes)
	sch := json.RawMessage(`{"type":"object","properties":{"n":{"type":"string","title":"key ` + k + `","description":"d ` + k + `","const":"` + k + `"}}}`)
	ans, err := ask(context.Background(), Elicitation{Message: "confirm " + k, Schema: sch})
	if err != nil || ans.Action != ElicitAccept {
		t.Fatalf("the answer fitting the schema as sent: %v %v", ans.Action, err)
	}
	_, _ = ask(context.Background(), Elicitation{Message: "open", URL: "https://x.example/?k=" + k})
	_, _ = ask(context.Background(), Elicitation{Sampling: &SamplingRequest{SystemPrompt: "sys " + k, Messages: []SamplingMessage{{Role: "user", Text: "m " + k}}, ModelHints: []string{k}},
		Schema: SamplingReplySchema})
	b, _ := json.Marshal(asked)
	if len(asked) != 3 || strings.Contains(string(b), k) || !strings.Contains(string(b), "masked: writeOnly /k") {
		t.Errorf("the person was asked %s", b)
	}
}

// TestMaskCutErrorMessage: an error message a driver cut with "…" (an
// MCP tool's isError text) loses the start of a secret at the cut.
func TestMaskCutErrorMessage(t *testing.T) {
	const k = "KKKKsecK"
	e := &modproto.Error{Code: "tool_error", Message: strings.Repeat("M", 20) + k[:5] + "…"}
	maskResult(&Result{Envelope: &modproto.Envelope{Error: e}}, []schema.Echo{{Pointer: "/k", Why: "writeOnly", Value: k}})
	if e.Message != strings.Repeat("M", 20)+"…" {
		t.Errorf("message %q", e.Message)
	}
}
