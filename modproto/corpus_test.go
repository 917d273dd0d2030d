package modproto

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusFiles returns every JSON fixture under the corpus's modules/;
// without the corpus it skips t (fails it under CI).
func corpusFiles(t testing.TB) []string {
	t.Helper()
	return jsonFiles(t, corpusModules(t))
}

// jsonFiles returns every JSON file under dir; none fails t.
func jsonFiles(t testing.TB, dir string) []string {
	t.Helper()
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatalf("no JSON fixtures under %s", dir)
	}
	return files
}

// TestCorpusEnvelopes sweeps every envelope in the corpus (facet's and
// facet-studio's, including the legacy ones): each decodes and keeps the
// rules of docs/protocol.md §6 (echoing its own request id); every descriptor keeps
// §9.
func TestCorpusEnvelopes(t *testing.T) {
	n := 0
	for _, p := range corpusFiles(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var head struct {
			Operation *string `json:"operation"`
		}
		if json.Unmarshal(b, &head) != nil || head.Operation == nil {
			continue // a request or a seed manifest, not an envelope
		}
		n++
		env, err := DecodeEnvelope(b)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if v := ValidateEnvelope(env, env.Operation, env.RequestID, env.Module); len(v) > 0 {
			t.Errorf("%s: %v", p, v)
		}
		if env.Operation == OperationDescribe {
			d, err := DecodeDescriptor(env.Result)
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			if v := ValidateDescriptor(d); len(v) > 0 {
				t.Errorf("%s: %v", p, v)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d envelopes in the corpus", n)
	}
}
