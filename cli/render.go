package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"modbay/modproto"
	"modbay/render"
)

// maxRenderBytes bounds what `modbay render` reads: beyond it the file is
// shown as metadata (a download) rather than loaded whole.
const maxRenderBytes = 64 << 20

func newRenderCommand(g *globals) *cobra.Command {
	var (
		presentation, mediaType string
		width                   int
		dark                    bool
	)
	cmd := &cobra.Command{
		Use:   "render FILE",
		Short: "Render a file as the cockpit would show it as an artifact",
		Long: `Render FILE with the artifact viewer its presentation selects (WIRE.md §10):
--presentation wins when it names a known primitive, otherwise the media type
decides (given with --media-type or guessed from the extension). Every byte is
sanitized before it reaches the terminal.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			fi, err := os.Stat(path)
			if err != nil {
				return withCode(ExitUsage, "%v", err)
			}
			if !fi.Mode().IsRegular() {
				return withCode(ExitUsage, "%s: not a regular file", path)
			}
			if mediaType == "" {
				mediaType = guessMediaType(path)
			}
			meta := render.Meta{Title: filepath.Base(path), MediaType: mediaType, Presentation: presentation,
				Path: path, Bytes: fi.Size()}
			o := render.Options{Width: width, Dark: dark, NoColor: g.noColor || os.Getenv("NO_COLOR") != ""}
			var src []byte
			if fi.Size() <= maxRenderBytes {
				f, err := os.Open(path)
				if err != nil {
					return withCode(ExitUsage, "%v", err)
				}
				src, err = io.ReadAll(f)
				f.Close()
				if err != nil {
					return withCode(ExitUsage, "%v", err)
				}
				meta.Digest = modproto.Digest(src)
			} else {
				meta.Presentation = render.PresentationDownload
			}
			out, err := render.Artifact(src, meta, o)
			fmt.Fprint(cmd.OutOrStdout(), strings.TrimRight(out, "\n")+"\n")
			if err != nil {
				return withCode(ExitHostVerdict, "%s: %v", path, err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&presentation, "presentation", "p", "", "presentation primitive (markdown, table, json, text, image, video, ...)")
	f.StringVar(&mediaType, "media-type", "", "media type (default: from the file extension)")
	f.IntVarP(&width, "width", "w", 80, "width in columns")
	f.BoolVar(&dark, "dark", true, "style for a dark background")
	return cmd
}

// guessMediaType maps common extensions to media types; unknown is
// application/octet-stream (a download).
func guessMediaType(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		return "text/markdown"
	case ".json":
		return "application/json"
	case ".jsonl", ".ndjson":
		return "application/x-ndjson"
	case ".csv":
		return "text/csv"
	case ".tsv", ".tab":
		return "text/tab-separated-values"
	case ".txt", ".log", ".srt", ".vtt":
		return "text/plain"
	case ".mmd", ".mermaid":
		return "text/vnd.mermaid"
	case ".dot", ".gv":
		return "text/vnd.graphviz"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	case ".mp4":
		return "video/mp4"
	case ".webm":
		return "video/webm"
	case ".mov":
		return "video/quicktime"
	case ".mp3":
		return "audio/mpeg"
	case ".wav":
		return "audio/wav"
	case ".pdf":
		return "application/pdf"
	case ".pptx":
		return "application/vnd.openxmlformats-officedocument.presentationml.presentation"
	}
	return "application/octet-stream"
}
