package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/charmbracelet/x/term"

	"github.com/spf13/cobra"

	"modbay/modproto"
	"modbay/probe"
	"modbay/render"
	"modbay/runner"
)

func newRenderCommand(g *globals) *cobra.Command {
	var (
		presentation, mediaType string
		width                   int
		dark, forceColor        bool
	)
	cmd := &cobra.Command{
		Use:   "render FILE",
		Short: "Render a file as the cockpit would show it as an artifact",
		Long: `Render FILE with the artifact viewer its presentation selects (WIRE.md §10):
--presentation wins when it names a known primitive, otherwise the media type
decides (given with --media-type, else the one recorded when the file was
staged as an artifact, else guessed from the extension). Every byte is
sanitized before it reaches the terminal.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if presentation != "" && !modproto.IsKnownPresentation(presentation) {
				return withCode(ExitUsage, "--presentation %q is not one of %s", presentation, strings.Join(modproto.Presentations, ", "))
			}
			if width < render.MinWidth {
				return withCode(ExitUsage, "--width must be at least %d (got %d)", render.MinWidth, width)
			}
			path := args[0]
			fi, err := os.Stat(path)
			if err != nil {
				return withCode(ExitUsage, "%v", err)
			}
			if !fi.Mode().IsRegular() {
				return withCode(ExitUsage, "%s: not a regular file", path)
			}
			title, kind := filepath.Base(path), ""
			if mediaType == "" && presentation == "" {
				// A staged artifact is shown as the run that staged it
				// described it; the newest record when staged under several.
				if types, _ := runner.StagedTypes(path); len(types) > 0 {
					st := types[0]
					mediaType, presentation, kind = st.MediaType, st.Presentation, st.Kind
					if st.Title != "" {
						title = st.Title
					}
					if len(types) > 1 {
						fmt.Fprintf(cmd.ErrOrStderr(), "modbay: %s was staged under %d types; shown as the newest, %s (--media-type and --presentation choose)\n",
							render.SanitizeLine(filepath.Base(path)), len(types), render.SanitizeLine(st.MediaType))
					}
				}
			}
			if mediaType == "" {
				mediaType = guessMediaType(path)
			}
			if presentation == "" && isJSONLines(path) {
				presentation = render.PresentationTable // one object per line reads best as rows
			}
			meta := render.Meta{Title: title, Kind: kind, MediaType: mediaType, Presentation: presentation,
				Path: path, Bytes: fi.Size()}
			// Colors only for a terminal (or when asked): a pipe or a file
			// gets plain text, as scripts expect.
			noColor := g.noColor || os.Getenv("NO_COLOR") != "" || (!forceColor && !isTerminal(cmd.OutOrStdout()))
			o := render.Options{Width: width, Dark: dark, NoColor: noColor}
			var src []byte
			if fi.Size() <= render.MaxRenderBytes {
				f, err := os.Open(path)
				if err != nil {
					return withCode(ExitUsage, "%v", err)
				}
				// The limit holds even if the file grew since the Stat.
				src, err = io.ReadAll(io.LimitReader(f, render.MaxRenderBytes))
				f.Close()
				if err != nil {
					return withCode(ExitUsage, "%v", err)
				}
				meta.Digest = modproto.Digest(src)
			} else {
				meta.Presentation = render.PresentationDownload
			}
			probe.Detect().Fill(cmd.Context(), render.Resolve(meta.Presentation, meta.MediaType), path, src, &meta)
			out, err := renderFile(src, meta, o, cmd.OutOrStdout())
			fmt.Fprint(cmd.OutOrStdout(), strings.TrimRight(out, "\n")+"\n")
			if err != nil {
				// A rendering that shows the data succeeds and says what was
				// wrong; only one that could show nothing is a verdict.
				if errors.Is(err, render.ErrNotShown) || strings.TrimSpace(out) == "" {
					return withCode(ExitHostVerdict, "%s: %v", path, err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "modbay: %s: %s\n", render.SanitizeLine(path), render.SanitizeLine(err.Error()))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&presentation, "presentation", "p", "", "presentation primitive (markdown, table, json, text, image, video, ...)")
	f.StringVar(&mediaType, "media-type", "", "media type (default: from the file extension)")
	f.IntVarP(&width, "width", "w", 80, "width in columns")
	f.BoolVar(&dark, "dark", true, "style for a dark background")
	f.BoolVar(&forceColor, "color", false, "colors even when the output is not a terminal")
	return cmd
}

// renderFile is render.Artifact, except that a markdown document is cut
// into chunks (render.SplitMarkdown) rendered in parallel, as the cockpit's
// viewer renders them, and an image goes out through the kitty or iTerm2
// protocol when w is a terminal that has one (not inside tmux).
func renderFile(src []byte, meta render.Meta, o render.Options, w io.Writer) (string, error) {
	pres := render.Resolve(meta.Presentation, meta.MediaType)
	switch {
	case pres == render.PresentationMarkdown && len(src) > render.MarkdownChunkBytes && !render.IsBinary(src):
		chunks := render.SplitMarkdown(src, render.MarkdownChunkBytes)
		defs := render.LinkDefinitions(src)
		outs := make([]string, len(chunks))
		errs := make([]error, len(chunks))
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		var wg sync.WaitGroup
		for i, c := range chunks {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				outs[i], errs[i] = render.MarkdownChunk(c, defs, o)
				outs[i] = strings.Trim(outs[i], "\n")
			})
		}
		wg.Wait()
		return strings.Join(outs, "\n\n"), errors.Join(errs...)
	case pres == render.PresentationImage && !o.NoColor && isTerminal(w):
		g := render.DetectGraphics(os.Getenv)
		if g == render.GraphicsHalfBlocks {
			break
		}
		info, err := render.ImageConfig(src)
		if err != nil {
			break
		}
		cols, rows := render.FitCells(info.Width, info.Height, o.Width, 24)
		head := fmt.Sprintf("%s image, %d×%d pixels\n", strings.ToUpper(info.Format), info.Width, info.Height)
		if g == render.GraphicsITerm {
			return head + render.ITermImage(src, cols), nil
		}
		if info.Format == "png" {
			return head + render.KittyImage(src, cols, rows) + strings.Repeat("\n", rows), nil
		}
	}
	return render.Artifact(src, meta, o)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// isJSONLines reports whether path names a JSON Lines file.
func isJSONLines(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return true
	}
	return false
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
