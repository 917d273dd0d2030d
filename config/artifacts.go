package config

// Defaults of the artifact store's quota (Artifacts), when config.yaml
// leaves them 0 (docs/protocol.md §14).
const (
	// DefaultArtifactsMaxBytes bounds the store under <home>/artifacts to
	// 8 GiB: room for many runs' media, short of filling a laptop's disk.
	DefaultArtifactsMaxBytes = 8 << 30
	// DefaultArtifactsMaxFiles bounds its staged files to 20,000 (inodes
	// a run can cost the disk, as well as bytes).
	DefaultArtifactsMaxFiles = 20000
)

// Artifacts is the `artifacts:` section of config.yaml: the quota of the
// content-addressed artifact store. A run whose artifacts would pass it
// is refused, naming it; garbage collection (history pruning, deletion)
// frees what no kept run names.
type Artifacts struct {
	// MaxBytes is the most bytes staged (0: DefaultArtifactsMaxBytes;
	// -1: no bound).
	MaxBytes int64 `yaml:"max_bytes"`
	// MaxFiles is the most files staged (0: DefaultArtifactsMaxFiles; -1:
	// no bound).
	MaxFiles int64 `yaml:"max_files"`
}

// Bytes is the byte quota, defaults applied; 0 means no bound.
func (a Artifacts) Bytes() int64 { return quota(a.MaxBytes, DefaultArtifactsMaxBytes) }

// Files is the file quota, defaults applied; 0 means no bound.
func (a Artifacts) Files() int64 { return quota(a.MaxFiles, DefaultArtifactsMaxFiles) }

func quota(v, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}
