package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// What a clone cannot follow: the protocol reference kept beside the
// repository, the folder beside it, and a tracker number. The patterns are
// split so this file does not match itself.
var (
	citeSpecFile = regexp.MustCompile(`\b(WIRE|SKILLS)` + `\.md|modproto\.go` + `\.txt|skills-spec\.go|tool-plugin\.d`)
	citeShared   = regexp.MustCompile(`\.\./` + `shared`)
	citeIssue    = regexp.MustCompile(`\b[Ii]ssues? #?` + `[0-9]+`)
	// A tracker number broken over two comment lines: "(issue" then "// 10)".
	citeIssueEnd  = regexp.MustCompile(`\b[Ii]ssues?\s*$`)
	citeIssueNext = regexp.MustCompile(`^\s*(//|#)?\s*#?[0-9]+\b`)
)

// citeNamedSection is a section cited by a made-up name (a section sign
// before a capital): docs cite a section of docs/ by its heading, and the
// protocol by number.
var citeNamedSection = regexp.MustCompile(`§[A-Z][a-z]+`)

// citeSection is a citation of the protocol document's section N.
var citeSection = regexp.MustCompile(`docs/protocol\.md §([0-9]+)`)

// sharedAllowed are the files that may name the folder beside the
// repository: the ones that look for the corpus there.
var sharedAllowed = map[string]bool{
	".ci/run":                                true,
	"internal/testcorpus/doc.go":             true,
	"internal/testcorpus/testcorpus.go":      true,
	"internal/testcorpus/testcorpus_test.go": true,
}

// maxCitationScan bounds the files read: larger ones are data, not prose.
const maxCitationScan = 4 << 20

// TestNoOutsideCitations reads every text file of the repository and fails
// on a citation a clone cannot follow: code, help texts and docs cite
// docs/protocol.md §N instead (a section that exists), and history belongs
// in commit messages.
func TestNoOutsideCitations(t *testing.T) {
	proto, err := os.ReadFile("docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && strings.HasPrefix(name, ".") && name != ".ci" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > maxCitationScan {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.IndexByte(data, 0) >= 0 {
			return nil // binary
		}
		rel := filepath.ToSlash(path)
		lines := bytes.Split(data, []byte("\n"))
		for i, line := range lines {
			for _, m := range citeSection.FindAllSubmatch(line, -1) {
				if !bytes.Contains(proto, []byte("\n## "+string(m[1])+". ")) {
					t.Errorf("%s:%d cites docs/protocol.md §%s, which has no such section", rel, i+1, m[1])
				}
			}
			switch {
			case citeNamedSection.Match(line):
				t.Errorf("%s:%d cites %s, a section no document here has by that name; quote the heading", rel, i+1, citeNamedSection.Find(line))
			case citeSpecFile.Match(line):
				t.Errorf("%s:%d cites a spec file outside the repository; cite docs/protocol.md §N", rel, i+1)
			case citeShared.Match(line) && !sharedAllowed[rel]:
				t.Errorf("%s:%d names the folder beside the repository, which a clone does not have", rel, i+1)
			case citeIssue.Match(line):
				t.Errorf("%s:%d cites a tracker number (%s); say the rule, keep history in commit messages", rel, i+1, citeIssue.Find(line))
			case citeIssueEnd.Match(line) && i+1 < len(lines) && citeIssueNext.Match(lines[i+1]):
				t.Errorf("%s:%d cites a tracker number across two lines; say the rule, keep history in commit messages", rel, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
