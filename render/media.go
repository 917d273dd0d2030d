package render

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// MediaInfo is what a prober (ffprobe -show_format -show_streams) reports
// about a video or audio file.
type MediaInfo struct {
	// Format is the container's long name ("QuickTime / MOV").
	Format string
	// Duration is in seconds; 0 when unknown.
	Duration float64
	// BitRate is in bits per second; 0 when unknown.
	BitRate int64
	// Streams are the file's streams in order.
	Streams []MediaStream
}

// MediaStream is one stream of a media file.
type MediaStream struct {
	// Type is "video", "audio", "subtitle" or "data"; Codec the codec name.
	Type, Codec string
	// Width and Height are a video stream's frame size in pixels.
	Width, Height int
	// SampleRate (Hz) and Channels describe an audio stream.
	SampleRate int
	Channels   int
	// FrameRate is a video stream's average rate as ffprobe writes it ("25/1").
	FrameRate string
}

// ParseFFProbe reads `ffprobe -v error -print_format json -show_format
// -show_streams` output.
func ParseFFProbe(out []byte) (*MediaInfo, error) {
	var raw struct {
		Format struct {
			LongName string `json:"format_long_name"`
			Duration string `json:"duration"`
			BitRate  string `json:"bit_rate"`
		} `json:"format"`
		Streams []struct {
			Type       string `json:"codec_type"`
			Codec      string `json:"codec_name"`
			Width      int    `json:"width"`
			Height     int    `json:"height"`
			SampleRate string `json:"sample_rate"`
			Channels   int    `json:"channels"`
			FrameRate  string `json:"avg_frame_rate"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		return nil, fmt.Errorf("ffprobe output: %w", err)
	}
	mi := &MediaInfo{Format: raw.Format.LongName}
	mi.Duration, _ = strconv.ParseFloat(raw.Format.Duration, 64)
	mi.BitRate, _ = strconv.ParseInt(raw.Format.BitRate, 10, 64)
	for _, s := range raw.Streams {
		sr, _ := strconv.Atoi(s.SampleRate)
		mi.Streams = append(mi.Streams, MediaStream{Type: s.Type, Codec: s.Codec, Width: s.Width, Height: s.Height,
			SampleRate: sr, Channels: s.Channels, FrameRate: s.FrameRate})
	}
	return mi, nil
}

// String describes the stream in a few words: "video h264 1920×1080 25/1 fps".
func (s MediaStream) String() string {
	parts := []string{s.Type, s.Codec}
	if s.Width > 0 {
		parts = append(parts, fmt.Sprintf("%d×%d", s.Width, s.Height))
	}
	if s.FrameRate != "" && s.FrameRate != "0/0" {
		parts = append(parts, s.FrameRate+" fps")
	}
	if s.SampleRate > 0 {
		parts = append(parts, fmt.Sprintf("%d Hz", s.SampleRate))
	}
	if s.Channels > 0 {
		parts = append(parts, fmt.Sprintf("%d ch", s.Channels))
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// mediaFields are the key/value rows of a MediaInfo.
func (mi *MediaInfo) fields() [][2]string {
	if mi == nil {
		return nil
	}
	var f [][2]string
	if mi.Format != "" {
		f = append(f, [2]string{"Container", mi.Format})
	}
	if mi.Duration > 0 {
		f = append(f, [2]string{"Duration", FormatDuration(mi.Duration, "s")})
	}
	if mi.BitRate > 0 {
		f = append(f, [2]string{"Bit rate", fmt.Sprintf("%d kb/s", mi.BitRate/1000)})
	}
	for i, s := range mi.Streams {
		f = append(f, [2]string{fmt.Sprintf("Stream %d", i), s.String()})
	}
	return f
}

// pdfPageRe finds page objects ("/Type /Page", not "/Pages") in a PDF.
var pdfPageRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Type\s*/Page[^s]`) })

// pdfCountRe finds a page tree's declared count.
var pdfCountRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/Type\s*/Pages[^>]*?/Count\s+(\d+)`) })

// PDFPageCount estimates a PDF's page count without a PDF library: the
// largest /Count of a /Pages node, else the number of /Type /Page objects.
// Compressed object streams hide both, so 0 means unknown, not empty.
func PDFPageCount(src []byte) int {
	best := 0
	for _, m := range pdfCountRe().FindAllSubmatch(src, -1) {
		if n, err := strconv.Atoi(string(m[1])); err == nil && n > best {
			best = n
		}
	}
	if best > 0 {
		return best
	}
	return len(pdfPageRe().FindAllIndex(src, -1))
}

// slideRe matches a slide part inside a pptx archive.
var slideRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ppt/slides/slide(\d+)\.xml$`) })

// PPTXInfo counts the slides of a pptx file and reads its title from
// docProps/core.xml; the archive is read from memory and only its directory
// and that one small part are inflated.
func PPTXInfo(src []byte) (slides int, title string, err error) {
	zr, err := zip.NewReader(bytes.NewReader(src), int64(len(src)))
	if err != nil {
		return 0, "", fmt.Errorf("pptx: %w", err)
	}
	for _, f := range zr.File {
		if slideRe().MatchString(f.Name) {
			slides++
		}
		if f.Name == "docProps/core.xml" && f.UncompressedSize64 < 1<<20 {
			rc, err := f.Open()
			if err != nil {
				continue
			}
			var buf bytes.Buffer
			_, _ = buf.ReadFrom(rc)
			rc.Close()
			s := buf.String()
			if i := strings.Index(s, "<dc:title>"); i >= 0 {
				if j := strings.Index(s[i:], "</dc:title>"); j >= 0 {
					title = s[i+len("<dc:title>") : i+j]
				}
			}
		}
	}
	return slides, title, nil
}

// SplitSlides cuts markdown slides into pages at lines that are exactly
// "---" (thematic breaks, the convention of Marp, Slidev and reveal.js),
// never inside a fenced code block. A leading front-matter block (the file
// starts with "---") is dropped. Empty pages are left out.
func SplitSlides(src []byte) []string {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i := 1; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == "---" {
				// Front matter holds key: value lines only.
				front := true
				for _, l := range lines[1:i] {
					if l != "" && !strings.Contains(l, ":") {
						front = false
					}
				}
				if front {
					lines = lines[i+1:]
				}
				break
			}
		}
	}
	var pages []string
	var cur []string
	fence := ""
	flush := func() {
		if p := strings.TrimSpace(strings.Join(cur, "\n")); p != "" {
			pages = append(pages, p+"\n")
		}
		cur = nil
	}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
		case l == "---":
			flush()
			continue
		}
		cur = append(cur, l)
	}
	flush()
	return pages
}

// Slides renders markdown slides ([SplitSlides]) one after the other, each
// under a "Slide i/n" rule, for a non-interactive output; a reference-style
// link resolves on every page wherever the deck defines it. A pptx (a zip) is
// shown as metadata with its slide count.
func Slides(src []byte, m Meta, o Options) (string, error) {
	if bytes.HasPrefix(src, []byte("PK\x03\x04")) {
		n, title, err := PPTXInfo(src)
		extra := [][2]string{{"Slides", strconv.Itoa(n)}}
		if title != "" {
			extra = append(extra, [2]string{"Deck title", title})
		}
		return details(m, extra, "", o), err
	}
	pages := SplitSlides(src)
	defs := LinkDefinitions(src) // a page is rendered alone
	var b strings.Builder
	for i, p := range pages {
		rule := fmt.Sprintf("── Slide %d/%d ", i+1, len(pages))
		rule += strings.Repeat("─", max(0, o.width()-cellWidth(rule)))
		b.WriteString(o.style(o.colors().muted).Render(rule))
		b.WriteByte('\n')
		out, err := MarkdownChunk([]byte(p), defs, o)
		if err != nil {
			return b.String() + out, err
		}
		b.WriteString(out)
	}
	return b.String(), nil
}
