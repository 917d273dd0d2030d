package config

import "path/filepath"

// Defaults of the run history (History), when config.yaml leaves them 0.
const (
	// DefaultHistoryMaxRuns keeps the last thousand runs: weeks of use,
	// listed in well under the 100 ms the history screen allows.
	DefaultHistoryMaxRuns = 1000
	// DefaultHistoryMaxBytes bounds the records (not the staged artifacts
	// they name) to 256 MiB.
	DefaultHistoryMaxBytes = 256 << 20
)

// History is the `history:` section of config.yaml: how much of the run
// history <home>/history keeps. The oldest runs beyond either
// bound are pruned; pinned runs and jobs still in flight never are.
type History struct {
	// MaxRuns is the most runs kept (0: DefaultHistoryMaxRuns; -1: no
	// bound).
	MaxRuns int `yaml:"max_runs"`
	// MaxBytes is the most bytes of records kept (0:
	// DefaultHistoryMaxBytes; -1: no bound).
	MaxBytes int64 `yaml:"max_bytes"`
	// RecordInputs, when false, keeps inputs out of the history (a
	// record then says its input was not recorded); nil means true.
	// Secret fields (writeOnly, format: password) are never recorded.
	RecordInputs *bool `yaml:"record_inputs"`
}

// Runs is the bound on kept runs, defaults applied; 0 means no bound.
func (h History) Runs() int {
	switch {
	case h.MaxRuns == 0:
		return DefaultHistoryMaxRuns
	case h.MaxRuns < 0:
		return 0
	}
	return h.MaxRuns
}

// Bytes is the bound on kept record bytes, defaults applied; 0 means no
// bound.
func (h History) Bytes() int64 {
	switch {
	case h.MaxBytes == 0:
		return DefaultHistoryMaxBytes
	case h.MaxBytes < 0:
		return 0
	}
	return h.MaxBytes
}

// Inputs reports whether inputs are recorded (RecordInputs, default true).
func (h History) Inputs() bool { return h.RecordInputs == nil || *h.RecordInputs }

// HistoryDir is <home>/history, where every run is recorded.
func (c *Config) HistoryDir() string { return filepath.Join(c.Home, "history") }
