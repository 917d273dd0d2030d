package gateway

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"modbay/modproto"
	"modbay/runner"
)

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestToolName(t *testing.T) {
	long := strings.Repeat("a.", 40)
	for _, tc := range []struct {
		id     string
		suffix bool
		want   string
	}{
		{"notes.report", false, "notes_report"},
		{"github.create_issue", false, "github_create_issue"},
		{"ünï/cødé", false, "_n__c_d_"},
		{"", false, "tool"},
	} {
		if got := ToolName(tc.id, tc.suffix); got != tc.want {
			t.Errorf("ToolName(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
	cut := ToolName(long, false)
	if len(cut) != MaxToolName || !namePattern.MatchString(cut) || ToolName(long+"x", false) == cut {
		t.Errorf("cut name %q (%d bytes) must be 64 bytes, valid and distinct per id", cut, len(cut))
	}
	if a, b := ToolName("x.y", true), ToolName("x_y", true); a == b || !namePattern.MatchString(a) {
		t.Errorf("suffixed names %q %q must differ", a, b)
	}
}

func module(id string, caps ...modproto.Capability) *runner.Module {
	return &runner.Module{ID: id, Status: runner.StatusReady, Descriptor: &modproto.Descriptor{Module: id, Capabilities: caps,
		RequestSchemas: map[string]json.RawMessage{}, ResultSchemas: map[string]json.RawMessage{}}}
}

func TestCatalogueCollisionsHiddenAndFilters(t *testing.T) {
	a := module("a", modproto.Capability{ID: "x.run"}, modproto.Capability{ID: "x.secret", Hidden: true},
		modproto.Capability{ID: "x.job", LongRunning: true, PollCapability: "x.poll"}, modproto.Capability{ID: "x.poll"})
	b := module("b", modproto.Capability{ID: "x_run"})
	cat := catalogue([]*runner.Module{a, b}, nil, nil)
	if _, ok := cat["x_run"]; ok || len(cat) != 3 {
		t.Fatalf("collision not suffixed, or hidden/poll served: %v", keys(cat))
	}
	for name, e := range cat {
		if !namePattern.MatchString(name) {
			t.Errorf("name %q", name)
		}
		if e.tool.Title != e.cap.ID {
			t.Errorf("%s: title %q", name, e.tool.Title)
		}
	}
	if got := catalogue([]*runner.Module{a}, []string{"a/x.*"}, []string{"a/x.job"}); len(got) != 1 || got["x_run"] == nil {
		t.Errorf("filters: %v", keys(got))
	}
}

// A pattern selects by the host's module id, never by the names a module
// chose: a module called evil that names its capabilities notes.* (so
// its tools are named notes_*, titled notes.*) answers to no pattern
// written for notes, and an exclude written for it holds whatever it
// calls its capabilities.
func TestPatternsSelectByModuleIdentity(t *testing.T) {
	notes := module("notes", modproto.Capability{ID: "notes.report"})
	evil := module("evil", modproto.Capability{ID: "notes.steal"}, modproto.Capability{ID: "notes_x"})
	mods := []*runner.Module{notes, evil}
	for _, tc := range []struct {
		name           string
		tools, exclude []string
		want           []string
	}{
		{"module pattern", []string{"notes"}, nil, []string{"notes/notes.report"}},
		{"module glob", []string{"note*"}, nil, []string{"notes/notes.report"}},
		{"capability pattern", []string{"notes/notes.*"}, nil, []string{"notes/notes.report"}},
		{"served names match nothing", []string{"notes_*", "notes.*"}, nil, nil},
		{"any module's capability, asked for", []string{"*/notes.*"}, nil, []string{"evil/notes.steal", "notes/notes.report"}},
		{"exclude a module", nil, []string{"evil"}, []string{"notes/notes.report"}},
		{"exclude holds whatever it is named", nil, []string{"evil/*"}, []string{"notes/notes.report"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range catalogue(mods, tc.tools, tc.exclude) {
				got = append(got, SelectID(e.module.ID, e.cap.ID))
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("tools %q exclude %q: %v, want %v", tc.tools, tc.exclude, got, tc.want)
			}
		})
	}
	if MatchSelect("[", "notes/x") || !MatchSelect("notes", "notes/x") || MatchSelect("notes*", "evil/notes.x") {
		t.Error("MatchSelect: a malformed pattern matched, a module pattern did not, or one matched the capability id")
	}
}

func keys(m map[string]*entry) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestInputSchema(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"none", ``, `{"type":"object"}`},
		{"not an object", `{"type":"array"}`, `{"type":"object"}`},
		{"refs inlined", `{"type":"object","properties":{"p":{"$ref":"#/$defs/p"}},"$defs":{"p":{"type":"string"}}}`,
			`{"properties":{"p":{"type":"string"}},"type":"object"}`},
		{"cycle bounded", `{"type":"object","properties":{"n":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"object","properties":{"n":{"$ref":"#/$defs/n"}}}}}`, ""},
		{"host-owned stripped", `{"type":"object","properties":{"input":{"type":"object"},"request_id":{"type":"string"},"mode":{"type":"string"}},"required":["request_id","mode"]}`,
			`{"properties":{"input":{"type":"object"},"mode":{"type":"string"}},"required":["mode"],"type":"object"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(InputSchema(json.RawMessage(tc.in)))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if len(b) > 1<<20 || strings.Contains(string(b), "$ref") {
					t.Errorf("cycle: %d bytes, refs left: %s", len(b), b[:min(len(b), 200)])
				}
				return
			}
			if string(b) != tc.want {
				t.Errorf("got %s\nwant %s", b, tc.want)
			}
		})
	}
	if OutputSchema(json.RawMessage(`{"type":"string"}`)) != nil || OutputSchema(json.RawMessage(`{"type":"object"}`)) == nil {
		t.Error("outputSchema must be given for object result schemas only")
	}
}

func TestAnnotations(t *testing.T) {
	d := &modproto.Descriptor{}
	ro := annotations(d, modproto.Capability{Effects: modproto.Effects{Local: true}})
	net := annotations(d, modproto.Capability{Effects: modproto.Effects{Network: true, ExternalWrites: true}})
	if !ro.ReadOnlyHint || *ro.OpenWorldHint || *ro.DestructiveHint {
		t.Errorf("local: %+v", ro)
	}
	if net.ReadOnlyHint || !*net.OpenWorldHint || !*net.DestructiveHint {
		t.Errorf("network + external writes: %+v", net)
	}
}

func TestFilterLines(t *testing.T) {
	var valid, errs strings.Builder
	in := "{\"a\":1}\n{nope\n\n" + `{"b":2}` // the last line has no newline
	if err := filterLines(strings.NewReader(in), &valid, &errs); err != nil {
		t.Fatal(err)
	}
	if valid.String() != "{\"a\":1}\n{\"b\":2}\n" || strings.Count(errs.String(), "-32700") != 1 {
		t.Errorf("valid %q errs %q", valid.String(), errs.String())
	}
}

// TestDescriptionNamesOnlyServedTools: a long-running capability's
// summary that names its poll or cancel capability (not served) is told
// what stands for each, so the description is true for the agent.
func TestDescriptionNamesOnlyServedTools(t *testing.T) {
	c := modproto.Capability{ID: "farm.render", LongRunning: true, PollCapability: "farm.jobs.status", CancelCapability: "farm.jobs.cancel",
		Summary: "Start a render job and return its handle at once; poll farm.jobs.status for progress."}
	d := description(&entry{cap: c})
	if !strings.Contains(d, "farm.jobs.status is not a tool here: call modbay_job_status with the run id instead.") {
		t.Errorf("the hidden poll capability is not explained: %s", d)
	}
	if strings.Contains(d, "farm.jobs.cancel") {
		t.Errorf("a capability the summary does not name is explained: %s", d)
	}
	c.Summary = "Start a render job."
	if d := description(&entry{cap: c}); strings.Contains(d, "not a tool here") {
		t.Errorf("a summary naming no hidden capability: %s", d)
	}
}
