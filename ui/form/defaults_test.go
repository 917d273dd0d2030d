package form_test

import (
	"encoding/json"
	"slices"
	"testing"

	"modbay/ui/form"
)

// One rule for defaults (form.DefaultRule).
const defaultsSchema = `{"type":"object","properties":{
	"branch":{"type":"string","default":"main"},
	"depth":{"type":"integer","default":1},
	"mode":{"enum":["fast","full"],"default":"full"},
	"dry":{"type":"boolean","default":true},
	"tags":{"type":"array","items":{"type":"string"},"default":["a"]},
	"owner":{"type":"string","examples":["octocat"]}},
	"required":["branch","mode"]}`

func TestDefaultsRequiredSentOptionalShown(t *testing.T) {
	f := build(t, defaultsSchema)
	// Untouched: the required fields' defaults are sent, the optional
	// ones' are not, and an example is never a value.
	if got := value(t, f); got != `{"branch":"main","mode":"full"}` {
		t.Fatalf("untouched: %s", got)
	}
	for _, ptr := range []string{"/branch", "/mode"} {
		if n := node(t, f, ptr); !n.Defaulted || !f.DefaultSent(n) || f.DefaultNotSent(n) != "" {
			t.Errorf("%s: not marked as a default that is sent", ptr)
		}
	}
	for ptr, want := range map[string]string{"/depth": "1", "/dry": "true", "/tags": `["a"]`} {
		if n := node(t, f, ptr); f.DefaultSent(n) || f.DefaultNotSent(n) != want {
			t.Errorf("%s: default not sent shows %q, want %q", ptr, f.DefaultNotSent(n), want)
		}
	}
	if n := node(t, f, "/owner"); n.Placeholder != "octocat" || n.Text != "" {
		t.Fatalf("example: placeholder %q text %q", n.Placeholder, n.Text)
	}

	// Touched: an optional field set is sent (its default no longer
	// shown), a required default edited is typed, not default.
	depth := node(t, f, "/depth")
	set(f, depth, "1")
	dry := node(t, f, "/dry")
	dry.Toggle()
	f.Changed(dry)
	branch := node(t, f, "/branch")
	set(f, branch, "dev")
	if got := value(t, f); got != `{"branch":"dev","depth":1,"mode":"full","dry":true}` {
		t.Fatalf("touched: %s", got)
	}
	if branch.Defaulted || f.DefaultSent(branch) || f.DefaultNotSent(depth) != "" {
		t.Fatal("an edited field still shows as a default")
	}
	// An optional boolean with a default goes back to not set.
	dry.Toggle()
	dry.Toggle()
	f.Changed(dry)
	if dry.Bool != form.BoolUnset || f.DefaultNotSent(dry) != "true" {
		t.Fatalf("optional boolean: %v", dry.Bool)
	}
	// Cleared, a required default is gone, with its problem.
	f.Clear(node(t, f, "/mode"))
	if _, local := f.Value(); !slices.Equal(local["/mode"], []string{form.MsgRequired}) {
		t.Fatalf("cleared required default: %v", local)
	}
}

// A loaded value is taken as it is: a required field absent from it stays
// absent (no default slipped in), one present is not marked as default.
func TestDefaultsNotAddedToALoadedValue(t *testing.T) {
	f := build(t, defaultsSchema)
	if err := f.SetValue(json.RawMessage(`{"mode":"full"}`)); err != nil {
		t.Fatal(err)
	}
	v, local := f.Value()
	if string(v) != `{"mode":"full"}` || !slices.Equal(local["/branch"], []string{form.MsgRequired}) {
		t.Fatalf("loaded: %s %v", v, local)
	}
	if n := node(t, f, "/mode"); n.Defaulted || f.DefaultSent(n) {
		t.Fatal("a loaded value is marked as the default")
	}
}
