package form

import (
	"errors"
	"os"
	"testing"

	"modbay/schema"
)

// TestBuildBudgetTotal: nested minItems multiply (400×400 fields, each
// under MaxBuildItems); the build stops at the total budget.
func TestBuildBudgetTotal(t *testing.T) {
	raw, err := os.ReadFile("testdata/hostile/nested-minitems.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(raw)
	var be *schema.BoundError
	if !errors.As(err, &be) || be.Bound != "MaxBuildTotalItems" {
		t.Fatalf("Build: %v, want the bound MaxBuildTotalItems", err)
	}
}
