package viewer

import (
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"modbay/ui/internal/uitest"
)

// TestTreeLeafWholeValue is the bug report's case: a long
// string leaf was cut with "…" and enter did nothing on it. Enter opens
// the whole value, wrapped to the width; esc closes it.
func TestTreeLeafWholeValue(t *testing.T) {
	long := strings.Repeat("word ", 60) + "THE-END"
	src := []byte(`{"short":1,"long":"` + long + `"}`)
	f := open(t, "leaf.json", src, "application/json", "json", 40, 20, false)
	f.key("down", "down") // .short, then .long
	if got := f.m.body.(*tree).Path(f.m.body.(*tree).cur); got != ".long" {
		t.Fatalf("cursor on %q, want .long", got)
	}
	if frame := ansi.Strip(f.frame()); strings.Contains(frame, "THE-END") || !strings.Contains(frame, "word…") {
		t.Fatalf("the long leaf is not cut with … past its lines:\n%s", frame)
	}
	if act := f.key("enter"); act != nil {
		t.Fatalf("enter on a leaf = %#v, want the value pane", act)
	}
	frame := ansi.Strip(f.frame())
	joined := strings.Join(strings.Fields(frame), " ")
	if !strings.Contains(joined, strings.TrimSpace(long)) || !strings.Contains(frame, "string, 307 characters") {
		t.Fatalf("value pane does not show the whole value:\n%s", frame)
	}
	if act := f.key("esc"); act != nil {
		t.Fatalf("esc in the value pane = %#v, want it closed, not the viewer", act)
	}
	if frame := ansi.Strip(f.frame()); !strings.Contains(frame, `"long": "word word`) {
		t.Fatalf("esc did not return to the tree:\n%s", frame)
	}
	if _, ok := f.key("esc").(ActionBack); !ok {
		t.Fatal("esc in the tree should leave the viewer")
	}
}

// TestTreeIndentBounded nests a leaf 40 levels deep and views it 40 cells
// wide: the indent stays within a third of the width, so the value shows.
func TestTreeIndentBounded(t *testing.T) {
	depth := 40
	src := strings.Repeat(`{"k":`, depth) + `"deep-value"` + strings.Repeat("}", depth)
	f := open(t, "deep.json", []byte(src), "application/json", "json", 40, 60, false)
	f.key("e") // expand all
	frame := ansi.Strip(f.frame())
	var leaf string
	for _, l := range strings.Split(frame, "\n") {
		if strings.Contains(l, "deep-val") {
			leaf = l
		}
	}
	if !strings.Contains(leaf, `"deep-value"`) {
		t.Fatalf("the deep leaf's value is off screen:\n%s", frame)
	}
	if ind := len(leaf) - len(strings.TrimLeft(leaf, " ")); ind > 40/maxIndentShare {
		t.Errorf("indent %d cells, bound %d: %q", ind, 40/maxIndentShare, leaf)
	}
	if !strings.Contains(leaf, "40›") {
		t.Errorf("a row past the bound shows no depth: %q", leaf)
	}
}

// TestTreeLeafPaneCopiesTheJSONPath: y in a leaf's value pane copies the
// leaf's JSON path, as y does in the tree, not the file's path.
func TestTreeLeafPaneCopiesTheJSONPath(t *testing.T) {
	src := []byte(`{"short":1,"long":"` + strings.Repeat("x", 200) + `"}`)
	f := open(t, "leaf.json", src, "application/json", "json", 40, 20, false)
	f.key("down", "down", "enter")
	tr := f.m.body.(*tree)
	if tr.detail == nil {
		t.Fatal("enter did not open the value pane")
	}
	_, cmd := tr.Update(uitest.Key("y"))
	if cmd == nil {
		t.Fatal("y in the value pane did nothing")
	}
	if msg, ok := cmd().(copyMsg); !ok || msg.text != ".long" {
		t.Fatalf("y copied %#v, want the JSON path .long", cmd())
	}
}

// TestTreeLeafWraps: at 40 columns a leaf too long for its row wraps onto
// lines under its value's column (under its key when the key leaves too
// little room), its key whole on one line, no text lost or cut with "…";
// the rows below follow, and the last row shows whole at the bottom.
func TestTreeLeafWraps(t *testing.T) {
	src, err := os.ReadFile("../../render/testdata/fidelity/longleaf.json")
	if err != nil {
		t.Fatal(err)
	}
	f := open(t, "longleaf.json", src, "application/json", "json", 40, 24, false)
	lines := strings.Split(ansi.Strip(f.frame()), "\n")
	body := strings.Join(lines[headerLines:len(lines)-2], "\n")
	for _, want := range []string{
		`    "title": "A leaf value long enough` + "\n" + `             to wrap at forty columns,`,
		`    "url": "https://example.com/a/long/p` + "\n" + `           ath/with/no/space/in/it/anywh`,
		`    "a_rather_long_key_name_here":` + " \n" + `      "and a value after it"`,
		`    "n": 12345678901234567890`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the tree does not show\n%s\nin:\n%s", want, body)
		}
	}
	if strings.Contains(body, "…") {
		t.Errorf("a value is cut:\n%s", body)
	}
	f = open(t, "longleaf.json", src, "application/json", "json", 40, 12, false)
	f.key("G")
	lines = strings.Split(ansi.Strip(f.frame()), "\n")
	if got := strings.Join(lines[headerLines:len(lines)-2], "\n"); !strings.Contains(got, `"n": 12345678901234567890`) || !strings.Contains(got, `html?q=1&r=2"`) {
		t.Errorf("at the bottom the last rows do not show whole:\n%s", got)
	}
}
