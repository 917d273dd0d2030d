package modproto

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestIDGrammar(t *testing.T) {
	long := strings.Repeat("a", 64)
	for _, c := range []struct {
		s                 string
		module, cap, root bool
	}{
		{"notes", true, true, true},
		{"xibodev.facet", true, true, false},
		{"creative.tools.describe", true, true, false},
		{"project_root", true, true, true},
		{"seed-in", true, true, true},
		{"9lives", true, true, true},
		{"Notes", true, true, true},
		{long, true, true, true},
		{long + "a", false, true, false},
		{strings.Repeat("a", 128), false, true, false},
		{strings.Repeat("a", 129), false, false, false},
		{"", false, false, false},
		{".", false, false, false},
		{"..", false, false, false},
		{"../..", false, false, false},
		{".requests", false, false, false},
		{"_private", false, false, false},
		{"-rf", false, false, false},
		{"a/b", false, false, false},
		{`a\b`, false, false, false},
		{"a b", false, false, false},
		{"a\x00b", false, false, false},
		{"nötes", false, false, false},
		{"nоtes", false, false, false}, // a Cyrillic о
		{"a@0123", false, false, false},
		{"a:b", false, false, false},
	} {
		if got := ValidModuleID(c.s); got != c.module {
			t.Errorf("ValidModuleID(%q) = %v", c.s, got)
		}
		if got := ValidCapabilityID(c.s); got != c.cap {
			t.Errorf("ValidCapabilityID(%q) = %v", c.s, got)
		}
		if got := ValidRootName(c.s); got != c.root {
			t.Errorf("ValidRootName(%q) = %v", c.s, got)
		}
	}
}

// TestDescriptorIDGrammar: a descriptor that breaks the grammar in its
// module id, a capability id or a root name breaks §9, naming §13.
func TestDescriptorIDGrammar(t *testing.T) {
	for _, tc := range []func(*Descriptor){
		func(d *Descriptor) { d.Module = "../.." },
		func(d *Descriptor) { d.Capabilities[0].ID = "x/y" },
		func(d *Descriptor) { d.Permissions.FilesystemWrite = []string{".requests"} },
		func(d *Descriptor) { d.Permissions.FilesystemRead = []string{"a.b"} },
	} {
		d := &Descriptor{Module: "m", Name: "M", Version: "1", ProtocolVersions: []string{ProtocolID},
			Capabilities: []Capability{{ID: "m.c", Summary: "s"}}}
		tc(d)
		d.Normalize()
		v := ValidateDescriptor(d)
		if len(v) != 1 || !strings.Contains(v.Error(), "docs/protocol.md §13") {
			t.Errorf("%+v: %v", d, v)
		}
	}
}

// TestCorpusKeepsTheIDGrammar: every descriptor in the corpus (facet,
// facet-studio) and in the project's own fixtures keeps the grammar, so
// existing modules run unchanged.
func TestCorpusKeepsTheIDGrammar(t *testing.T) {
	files := corpusFiles(t)
	for _, dir := range []string{"../runner/testdata", "../ui/internal/uitest/testdata"} {
		files = append(files, jsonFiles(t, dir)...)
	}
	n := 0
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var head struct {
			Operation string          `json:"operation"`
			Result    json.RawMessage `json:"result"`
		}
		if json.Unmarshal(b, &head) != nil {
			continue
		}
		raw := b
		if head.Operation == OperationDescribe {
			raw = head.Result
		}
		d, err := DecodeDescriptor(raw)
		if err != nil || d.Module == "" || len(d.Capabilities) == 0 {
			continue // not a descriptor
		}
		n++
		check := func(what, s string, ok bool) {
			if !ok {
				t.Errorf("%s: %s %q breaks the grammar", filepath.Base(p), what, s)
			}
		}
		check("module", d.Module, ValidModuleID(d.Module))
		for _, c := range d.Capabilities {
			check("capability", c.ID, ValidCapabilityID(c.ID))
		}
		for _, r := range append(d.Permissions.FilesystemRead, d.Permissions.FilesystemWrite...) {
			check("root", r, ValidRootName(r))
		}
	}
	if n < 4 {
		t.Errorf("only %d descriptors checked", n)
	}
}

// TestSchemaIDQuotedCut: a 100 KB $id that does not end in its key is
// quoted cut, not whole, in the violation.
func TestSchemaIDQuotedCut(t *testing.T) {
	id := strings.Repeat("é", 50000)
	msg := checkSchemaDoc("x.req/v1", json.RawMessage(`{"$id":"`+id+`"}`))
	if !strings.Contains(msg, "does not end in its key") || len(msg) > 500 || !utf8.ValidString(msg) {
		t.Fatalf("%d bytes: %.300s", len(msg), msg)
	}
}
