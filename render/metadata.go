package render

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"modbay/modproto"
)

const (
	// keyGap is the blank cells between the key column and the values of a
	// Metadata block.
	keyGap = 2
	// minValueCells is the narrowest value column worth having: a digest is
	// 71 cells, so below this each key goes on its own line with its value
	// indented under it instead.
	minValueCells = 24
	// stackedIndent indents values under their key in the stacked layout.
	stackedIndent = 2
	// metaBreakpoints are where a long value (a path, a digest) may wrap
	// besides spaces and '-'.
	metaBreakpoints = "/_.:"
)

// Meta describes an artifact for [Metadata] and [Artifact]. Every field comes
// from a module (modproto.Artifact) or the runner and is untrusted text.
type Meta struct {
	// Title is the artifact's one-line title, if the module gave one.
	Title string
	// Kind is the artifact schema id (modproto.Artifact.Kind).
	Kind string
	// MediaType is the module's media type, parameters included.
	MediaType string
	// Presentation is the module's presentation hint, as sent.
	Presentation string
	// Digest is "sha256:<64 lowercase hex>".
	Digest string
	// Path is where the artifact can be found: the staged copy or the path
	// relative to its root.
	Path string
	// Bytes is the file size; 0 means not known.
	Bytes int64
	// Verified says the runner checked the file's digest and size (docs/protocol.md §8).
	Verified bool
	// Probe is what a media prober (ffprobe) reported for a video or audio
	// file, when the caller ran one; render never runs programs.
	Probe *MediaInfo
	// DocText is the text of a document's first pages when the caller
	// extracted it (pdftotext); shown under a document's metadata.
	DocText string
}

// Metadata renders a small aligned key/value block describing an artifact that
// has no terminal viewer (video, audio, image, image_grid, document, diagram,
// slides, timeline, download): title, kind, media type, the resolved
// presentation, size, digest, path and whether it was verified, then a note
// that the artifact can be saved and opened elsewhere. Empty fields are
// omitted. Every field is passed through [SanitizeLine]; long values wrap
// under themselves so no line is wider than o.Width, and when the value column
// would be narrower than 24 cells each value goes on the lines below its key.
// Keys are dimmed unless o.NoColor.
func Metadata(m Meta, o Options) string {
	return metadata(m, "", o)
}

// metadata is Metadata with an extra note line (empty for none) before the
// closing advice, used by Artifact to say why no viewer was used.
func metadata(m Meta, note string, o Options) string {
	return details(m, nil, note, o)
}

// details is Metadata with extra key/value rows after the standard ones
// (a video's streams, a PDF's page count) and an optional note.
func details(m Meta, extra [][2]string, note string, o Options) string {
	width := o.width()
	pres := Resolve(m.Presentation, m.MediaType)
	verified := "no"
	if m.Verified {
		verified = "yes (digest and size checked)"
	}
	var size string
	if m.Bytes > 0 {
		size = fmt.Sprintf("%s (%d bytes)", HumanBytes(m.Bytes), m.Bytes)
	}
	fields := [][2]string{
		{"Title", m.Title},
		{"Kind", m.Kind},
		{"Media type", m.MediaType},
		{"Presentation", pres},
		{"Size", size},
		{"Digest", m.Digest},
		{"Path", m.Path},
		{"Verified", verified},
	}
	fields = append(fields, extra...)
	keyW := 0
	for _, f := range fields {
		keyW = max(keyW, len(f[0]))
	}
	keyW += keyGap
	stacked := width-keyW < minValueCells
	valW, indent := width-keyW, strings.Repeat(" ", keyW)
	if stacked {
		valW, indent = width-stackedIndent, strings.Repeat(" ", stackedIndent)
	}
	keyStyle := o.style(o.colors().muted)

	var b strings.Builder
	for _, f := range fields {
		val := strings.TrimSpace(SanitizeLine(f[1]))
		if val == "" {
			continue
		}
		b.WriteString(keyStyle.Render(f[0]))
		if stacked {
			b.WriteByte('\n')
		} else {
			b.WriteString(strings.Repeat(" ", keyW-len(f[0])))
		}
		for i, line := range strings.Split(ansi.Wrap(val, valW, metaBreakpoints), "\n") {
			if i > 0 || stacked {
				b.WriteString(indent)
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	b.WriteByte('\n')
	if note != "" {
		b.WriteString(ansi.Wrap(note, width, ""))
		b.WriteByte('\n')
	}
	advice := "You can save the artifact to open it with another program."
	if pres == modproto.PresentationDownload {
		advice = "A download: save it (s) to a directory of your choice."
	}
	b.WriteString(ansi.Wrap(advice, width, ""))
	b.WriteByte('\n')
	return fitLines(b.String(), width)
}
