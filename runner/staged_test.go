package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"modbay/modproto"
)

// TestStagedTypesBesideTheBytes: the same bytes staged under two types
// keep both records, newest first; staging again under a type replaces
// its record; a path outside a store has none.
func TestStagedTypesBesideTheBytes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sha256", "ab")
	os.MkdirAll(dir, 0o700)
	staged := filepath.Join(dir, strings.Repeat("ab", 32))
	os.WriteFile(staged, []byte("a,b\n1,2\n"), 0o444)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	csv := modproto.Artifact{ID: "t", Title: "Table", Kind: "report/v1", MediaType: "text/csv", Presentation: "table"}
	txt := modproto.Artifact{ID: "x", MediaType: "text/plain"}
	for i, a := range []modproto.Artifact{csv, txt, csv} {
		if err := recordStagedType(staged, a, t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	types, err := StagedTypes(staged)
	if err != nil {
		t.Fatal(err)
	}
	if len(types) != 2 {
		t.Fatalf("want 2 types, got %+v", types)
	}
	if types[0].MediaType != "text/csv" || types[0].Presentation != "table" || types[0].Title != "Table" || !types[0].Staged.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("newest record %+v", types[0])
	}
	if types[1].MediaType != "text/plain" {
		t.Errorf("older record %+v", types[1])
	}
	// A record that is not JSON is skipped, not fatal.
	os.WriteFile(staged+".000000000000"+stagedTypeSuffix, []byte("{not json"), 0o444)
	if types, _ := StagedTypes(staged); len(types) != 2 {
		t.Errorf("a broken record changed the answer: %+v", types)
	}
	other := filepath.Join(t.TempDir(), "report.csv")
	os.WriteFile(other, nil, 0o644)
	if types, err := StagedTypes(other); types != nil || err != nil {
		t.Errorf("a file outside the store: %+v, %v", types, err)
	}
}
