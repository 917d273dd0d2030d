package runner

import (
	"testing"
)

// FuzzParseJob: a job handle is read from untrusted results.
func FuzzParseJob(f *testing.F) {
	f.Add([]byte(`{"job":{"job_id":"j","state":"running","percent":5}}`))
	f.Add([]byte(`{"job_id":"j","percent":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if js := parseJob(b); js != nil && js.ID == "" {
			t.Fatal("a job without an id")
		}
	})
}
