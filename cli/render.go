package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/charmbracelet/colorprofile"
	"github.com/spf13/cobra"
	"github.com/xo/terminfo"

	"modbay/modproto"
	"modbay/probe"
	"modbay/render"
	"modbay/runner"
)

// RenderOptions is what `modbay render` was asked to do.
type RenderOptions struct {
	IO *ioStreams
	G  *globals
	// Path is the file to render.
	Path string
	// Presentation and MediaType override the guesses ("" = guess).
	Presentation, MediaType string
	// Width is the width in columns (at least render.MinWidth).
	Width int
	// Dark styles for a dark background; ForceColor colors a pipe too.
	Dark, ForceColor bool
}

// newRenderCommand builds `modbay render`; runF, when non-nil, replaces
// renderRun.
func newRenderCommand(g *globals, runF func(context.Context, *RenderOptions) error) *cobra.Command {
	opts := &RenderOptions{IO: g.io, G: g}
	cmd := &cobra.Command{
		Use:   "render FILE",
		Short: "Render a file as the cockpit would show it as an artifact",
		Long: `Render FILE with the artifact viewer its presentation selects (docs/modules.md#artifacts):
--presentation wins when it names a known primitive, otherwise the media type
decides (given with --media-type, else the one recorded when the file was
staged as an artifact, else guessed from the extension). Every byte is
sanitized before it reaches the terminal.

On a terminal, colors follow what it can show (TERM, COLORTERM, its terminfo
entry): a vt100 gets none, an 8-color xterm no 256-color codes.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return renderRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Presentation, "presentation", "p", "", "presentation primitive (markdown, table, json, text, image, video, ...)")
	f.StringVar(&opts.MediaType, "media-type", "", "media type (default: from the file extension)")
	f.IntVarP(&opts.Width, "width", "w", 80, "width in columns")
	f.BoolVar(&opts.Dark, "dark", true, "style for a dark background")
	f.BoolVar(&opts.ForceColor, "color", false, "colors even when the output is not a terminal")
	return cmd
}

// renderRun renders one file to stdout: plain to a pipe or a file (unless
// --color), degraded to the terminal's color profile on a terminal.
func renderRun(ctx context.Context, o *RenderOptions) error {
	presentation, mediaType := o.Presentation, o.MediaType
	if presentation != "" && !modproto.IsKnownPresentation(presentation) {
		return withCode(ExitUsage, "--presentation %q is not one of %s", presentation, strings.Join(modproto.Presentations, ", "))
	}
	if o.Width < render.MinWidth {
		return withCode(ExitUsage, "--width must be at least %d (got %d)", render.MinWidth, o.Width)
	}
	path := o.Path
	fi, err := os.Stat(path)
	if err != nil {
		return withCode(ExitUsage, "%v", err)
	}
	if !fi.Mode().IsRegular() {
		return withCode(ExitUsage, "%s: not a regular file", path)
	}
	title, kind := filepath.Base(path), ""
	if mediaType == "" && presentation == "" {
		// A staged artifact is shown as the run that staged it described
		// it; the newest record when staged under several.
		if types, _ := runner.StagedTypes(path); len(types) > 0 {
			st := types[0]
			mediaType, presentation, kind = st.MediaType, st.Presentation, st.Kind
			if st.Title != "" {
				title = st.Title
			}
			if len(types) > 1 {
				fmt.Fprintf(o.IO.ErrOut, "modbay: %s was staged under %d types; shown as the newest, %s (--media-type and --presentation choose)\n",
					render.SanitizeLine(filepath.Base(path)), len(types), render.SanitizeLine(st.MediaType))
			}
		}
	}
	if mediaType == "" {
		mediaType = guessMediaType(path)
	}
	if presentation == "" && isJSONLines(path) {
		presentation = modproto.PresentationTable // one object per line reads best as rows
	}
	meta := render.Meta{Title: title, Kind: kind, MediaType: mediaType, Presentation: presentation,
		Path: path, Bytes: fi.Size()}
	// Colors only for a terminal (or when asked): a pipe or a file
	// gets plain text, as scripts expect.
	tty := o.IO.IsTerminal(o.IO.Out)
	noColor := o.IO.noColor(o.G.noColor) || (!o.ForceColor && !tty)
	ro := render.Options{Width: o.Width, Dark: o.Dark, NoColor: noColor}
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
		meta.Presentation = modproto.PresentationDownload
	}
	probe.Detect().Fill(ctx, render.Resolve(meta.Presentation, meta.MediaType), path, src, &meta)
	var w io.Writer = o.IO.Out
	if tty && !noColor {
		// The renderers style in full color; the terminal gets what it
		// can show.
		w = &colorprofile.Writer{Forward: w, Profile: terminalProfile(o.IO.Environ())}
	}
	out, err := renderFile(src, meta, ro, tty, o.IO.Getenv)
	fmt.Fprint(w, strings.TrimRight(out, "\n")+"\n")
	if err != nil {
		// A rendering that shows the data succeeds and says what was
		// wrong; only one that could show nothing is a verdict.
		if errors.Is(err, render.ErrNotShown) || strings.TrimSpace(out) == "" {
			return withCode(ExitHostVerdict, "%s: %v", path, err)
		}
		fmt.Fprintf(o.IO.ErrOut, "modbay: %s: %s\n", render.SanitizeLine(path), render.SanitizeLine(err.Error()))
	}
	return nil
}

// terminalProfile is the color profile of the terminal described by env
// ("KEY=value"): colorprofile's reading of TERM, COLORTERM, NO_COLOR and
// CLICOLOR(_FORCE), raised by terminfo's Tc/RGB flags and tmux, then
// capped by the terminfo entry's own color count unless COLORTERM claims
// true color: no colors (vt100) is ASCII (attributes only), fewer than 256
// is ANSI. Without a terminfo entry colorprofile's reading stands.
func terminalProfile(env []string) colorprofile.Profile {
	var termName, colorTerm string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "TERM":
			termName = v
		case "COLORTERM":
			colorTerm = v
		}
	}
	p := colorprofile.Env(env)
	if p <= colorprofile.ASCII {
		return p // TERM=dumb or unset, or NO_COLOR: nothing raises it
	}
	p = max(p, colorprofile.Terminfo(termName), colorprofile.Tmux(env))
	if colorTerm != "" {
		return p
	}
	ti, err := terminfo.Load(termName)
	if err != nil {
		return p
	}
	if _, ok := ti.ExtBoolCapsShort()["Tc"]; ok {
		return p
	}
	if _, ok := ti.ExtBoolCapsShort()["RGB"]; ok {
		return p
	}
	switch colors := ti.Nums[terminfo.MaxColors]; {
	case colors < 8:
		return min(p, colorprofile.ASCII)
	case colors < 256:
		return min(p, colorprofile.ANSI)
	case colors == 256:
		return min(p, colorprofile.ANSI256)
	}
	return p
}

// renderFile is render.Artifact, except that a markdown document is cut
// into chunks (render.SplitMarkdown) rendered in parallel, as the cockpit's
// viewer renders them, and an image goes out through the kitty or iTerm2
// protocol when the output is a terminal (tty) that has one (not inside
// tmux, as getenv tells).
func renderFile(src []byte, meta render.Meta, o render.Options, tty bool, getenv func(string) string) (string, error) {
	pres := render.Resolve(meta.Presentation, meta.MediaType)
	switch {
	case pres == modproto.PresentationMarkdown && len(src) > render.MarkdownChunkBytes && !render.IsBinary(src) && render.MarkdownWorkWithin(src):
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
	case pres == modproto.PresentationImage && !o.NoColor && tty:
		g := render.DetectGraphics(getenv)
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
