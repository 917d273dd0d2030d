package conform

import (
	"os"
	"strings"
	"testing"

	"modbay/schema"
)

// TestGenerateBudgetTotal: 20 required objects of 10 required strings of
// minLength 100,000, each under MaxBuildString, are 20 MB per input;
// generation stops at the total budget and says which.
func TestGenerateBudgetTotal(t *testing.T) {
	raw, err := os.ReadFile("testdata/hostile/wide-strings.json")
	if err != nil {
		t.Fatal(err)
	}
	h, err := schema.Compile(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Generate(h) {
		if c.Kind == KindMinimal {
			if !strings.Contains(c.Skip, "MaxBuildTotalString") {
				t.Fatalf("minimal case: skip %q, input %d bytes; want the bound MaxBuildTotalString", c.Skip, len(c.Input))
			}
			return
		}
	}
	t.Fatal("no minimal case")
}
