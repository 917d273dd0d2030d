package contain

import "fmt"

// WriteBoundError is a run that wrote past Limits.WriteBytes or
// Limits.WriteFiles: what it wrote and the bound, for a host verdict.
type WriteBoundError struct {
	// Bound names the limit passed: "write_mb" or "write_files"
	// (config.yaml's limits keys).
	Bound string
	// Bytes and Files are what the run added, as measured; Max the bound
	// (bytes for write_mb, files for write_files).
	Bytes, Files, Max int64
	// Attributed is false when the walk could not finish (more than
	// maxWriteWalk entries) and the filesystems' growth was taken whole.
	Attributed bool
	// Killed is true when the excess was found while the module ran and
	// its tree was killed; false when found after it exited.
	Killed bool
}

func (e *WriteBoundError) Error() string {
	what := "under its rw roots and run directory"
	if !e.Attributed {
		what = "to the filesystems of its rw roots and run directory (too many entries to attribute)"
	}
	end := ""
	if e.Killed {
		end = "; the process tree was killed"
	}
	if e.Bound == "write_files" {
		return fmt.Sprintf("the run added %d files %s, past limits.write_files (%d)%s", e.Files, what, e.Max, end)
	}
	return fmt.Sprintf("the run wrote %s %s, past limits.write_mb (%s)%s", mib(e.Bytes), what, mib(e.Max), end)
}

// mib is n bytes in MiB for a person: "4096 MiB", "5.2 MiB".
func mib(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
