package history

import (
	"fmt"
	"path/filepath"
	"strings"

	"modbay/runner"
)

// ArtifactRef names an artifact of a recorded run: "RUN:ARTIFACT_ID"
// (the run's id, the artifact's id as its module declared it).
type ArtifactRef struct {
	RunID, ArtifactID string
}

// String is the ref as written: RUN:ARTIFACT_ID.
func (r ArtifactRef) String() string { return r.RunID + ":" + r.ArtifactID }

// ParseArtifactRef parses "RUN:ARTIFACT_ID" (split at the first colon:
// run ids hold none). Errors name what is missing.
func ParseArtifactRef(s string) (ArtifactRef, error) {
	run, id, ok := strings.Cut(s, ":")
	if !ok || run == "" || id == "" {
		return ArtifactRef{}, fmt.Errorf("%q is not RUN:ARTIFACT_ID", s)
	}
	if err := CheckID(run); err != nil {
		return ArtifactRef{}, err
	}
	return ArtifactRef{RunID: run, ArtifactID: id}, nil
}

// HandoffFile finds the artifact ref names in the history and returns it
// as a file to hand to read root root of another run: its staged bytes, which must lie in artifactsDir (the
// home's store; a record naming anything else is refused), under the
// base name of its declared path, with its digest to check the copy.
// Errors: ErrNotFound or ErrBadID (wrapped), a *DamagedError, or a run
// that has no such artifact.
func (s *Store) HandoffFile(root string, ref ArtifactRef, artifactsDir string) (runner.HandoffFile, error) {
	rec, err := s.Get(ref.RunID)
	if err != nil {
		return runner.HandoffFile{}, err
	}
	for _, a := range rec.Artifacts {
		if a.ID != ref.ArtifactID {
			continue
		}
		return ArtifactHandoff(root, ref, a, artifactsDir)
	}
	ids := make([]string, 0, len(rec.Artifacts))
	for _, a := range rec.Artifacts {
		ids = append(ids, a.ID)
	}
	have := "none"
	if len(ids) > 0 {
		have = strings.Join(ids, ", ")
	}
	return runner.HandoffFile{}, fmt.Errorf("run %s has no artifact %q (its artifacts: %s)", ref.RunID, ref.ArtifactID, have)
}

// ArtifactHandoff is a, an artifact of run ref.RunID, as a file to hand
// to read root root: HandoffFile without the lookup.
func ArtifactHandoff(root string, ref ArtifactRef, a Artifact, artifactsDir string) (runner.HandoffFile, error) {
	rel, err := filepath.Rel(filepath.Clean(artifactsDir), filepath.Clean(a.Staged))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return runner.HandoffFile{}, fmt.Errorf("artifact %s: its staged copy %q is not in the artifact store", ref, a.Staged)
	}
	name := runner.HandoffName(a.Path)
	if name == "" {
		return runner.HandoffFile{}, fmt.Errorf("artifact %s: its path %q gives no usable file name", ref, a.Path)
	}
	return runner.HandoffFile{Root: root, Source: a.Staged, Name: name, Digest: a.Digest, Origin: ref.String()}, nil
}
