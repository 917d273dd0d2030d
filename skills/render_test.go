package skills

import (
	"fmt"
	"reflect"
	"testing"
)

// TestRenderRules: one case per rule of docs/skills.md "Rendering with arguments".
func TestRenderRules(t *testing.T) {
	args := []Argument{{Name: "topic"}, {Name: "tone", Default: "plain"}, {Name: "who"}}
	cases := []struct {
		name, body string
		values     map[string]string
		want       string
		unknown    []string
	}{
		{name: "dollar", body: "On $topic.", values: map[string]string{"topic": "cats"}, want: "On cats."},
		{name: "braces", body: "On {{topic}}.", values: map[string]string{"topic": "cats"}, want: "On cats."},
		{name: "braces spaced", body: "On {{ topic }} and {{\ttopic\t}}.", values: map[string]string{"topic": "cats"}, want: "On cats and cats."},
		{name: "default", body: "A $tone tone.", want: "A plain tone."},
		{name: "value beats default", body: "A $tone tone.", values: map[string]string{"tone": "dry"}, want: "A dry tone."},
		{name: "no value no default", body: "For [$who].", want: "For []."},
		{name: "escaped", body: `Literal \$topic, set $topic.`, values: map[string]string{"topic": "x"}, want: "Literal $topic, set x."},
		{name: "unknown stays", body: "$nope and {{ nada }} and $nope", want: "$nope and {{ nada }} and $nope", unknown: []string{"$nope", "{{ nada }}"}},
		{name: "ARGUMENTS not special", body: "Args: $ARGUMENTS", want: "Args: $ARGUMENTS", unknown: []string{"$ARGUMENTS"}},
		{name: "positional literal", body: "Costs $1 or $ 2.", want: "Costs $1 or $ 2."},
		{name: "longest name", body: "$topics vs $topic_x vs $topic.", values: map[string]string{"topic": "t"}, want: "$topics vs $topic_x vs t.", unknown: []string{"$topics", "$topic_x"}},
		{name: "one pass", body: "$topic", values: map[string]string{"topic": "$tone {{tone}}"}, want: "$tone {{tone}}"},
		{name: "unclosed braces", body: "{{topic and {{ }}", want: "{{topic and {{ }}"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Render(c.body, args, c.values)
			if r.Text != c.want {
				t.Errorf("text %q, want %q", r.Text, c.want)
			}
			if !reflect.DeepEqual(r.UnknownPlaceholders, c.unknown) {
				t.Errorf("unknown %q, want %q", r.UnknownPlaceholders, c.unknown)
			}
		})
	}
}

// TestRenderApplied lists every declared argument's value and warns about
// values for undeclared names.
func TestRenderApplied(t *testing.T) {
	r := Render("x", []Argument{{Name: "a", Default: "1"}, {Name: "b"}}, map[string]string{"b": "2", "zz": "3"})
	if fmt.Sprint(r.AppliedArguments) != "map[a:1 b:2]" {
		t.Errorf("applied %v", r.AppliedArguments)
	}
	if len(r.Warnings) != 1 || r.Warnings[0] != `argument "zz" is not declared by the skill; ignored` {
		t.Errorf("warnings %q", r.Warnings)
	}
	if r := Render("$a", nil, nil); r.AppliedArguments != nil || r.Text != "$a" {
		t.Errorf("no arguments: %+v", r)
	}
}
