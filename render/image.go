package render

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	_ "image/gif"  // GIF decoder for DecodeImage.
	_ "image/jpeg" // JPEG decoder for DecodeImage.
	_ "image/png"  // PNG decoder for DecodeImage.
	"strings"

	_ "golang.org/x/image/webp" // WebP decoder: modules produce WebP thumbnails and stills.
)

const (
	// MaxImagePixels is the largest image DecodeImage decodes: 40 megapixels
	// (an 8K frame is 33). A PNG header can claim 100000×100000 in a few bytes;
	// decoding that would allocate 40 GB, so the header is checked first.
	MaxImagePixels = 40_000_000
	// kittyChunk is the largest base64 payload per kitty graphics escape
	// (the protocol's limit is 4096 bytes per chunk).
	kittyChunk = 4096
	// asciiRamp shades a pixel from dark to light when colors are off.
	asciiRamp = " .:-=+*#%@"
)

// ErrImageTooLarge is returned by DecodeImage for an image whose header
// declares more than MaxImagePixels pixels.
var ErrImageTooLarge = errors.New("image too large")

// ImageInfo is what an image's header says.
type ImageInfo struct {
	// Format is the decoder's name: "png", "jpeg", "gif" or "webp".
	Format string
	// Width and Height are in pixels, as the header declares them.
	Width, Height int
	// Note says what DecodeImage forgave to decode the image as browsers
	// do (PNG ancillary chunks with a bad CRC, skipped); "" when nothing.
	Note string
}

// imageErr is err said once as an image's: "image: …" (the image
// package's own errors already say so: "image: unknown format").
func imageErr(err error) error {
	if strings.HasPrefix(err.Error(), "image: ") {
		return err
	}
	return fmt.Errorf("image: %w", err)
}

// ImageConfig reads an image's format and declared size without decoding it.
func ImageConfig(src []byte) (ImageInfo, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(src))
	if err != nil {
		return ImageInfo{}, imageErr(err)
	}
	return ImageInfo{Format: format, Width: cfg.Width, Height: cfg.Height}, nil
}

// DecodeImage decodes a PNG, JPEG, GIF (first frame) or WebP image after
// checking that its header declares at most MaxImagePixels pixels (and
// positive dimensions); a header that lies the other way, claiming less than
// the data holds, cannot hurt because the decoders allocate from the header.
func DecodeImage(src []byte) (image.Image, ImageInfo, error) {
	info, err := ImageConfig(src)
	if err != nil {
		return nil, info, err
	}
	if info.Width <= 0 || info.Height <= 0 || int64(info.Width)*int64(info.Height) > MaxImagePixels {
		return nil, info, fmt.Errorf("image: %d×%d pixels: %w (limit %d)", info.Width, info.Height, ErrImageTooLarge, MaxImagePixels)
	}
	img, _, err := image.Decode(bytes.NewReader(src))
	if err != nil && info.Format == "png" {
		if fixed, skipped := skipBadAncillary(src); len(skipped) > 0 {
			if img, _, err2 := image.Decode(bytes.NewReader(fixed)); err2 == nil {
				info.Note = fmt.Sprintf("PNG chunk %s has a bad CRC: skipped, as browsers do", strings.Join(skipped, ", "))
				return img, info, nil
			}
		}
	}
	if err != nil {
		return nil, info, imageErr(err)
	}
	return img, info, nil
}

// skipBadAncillary is PNG src without its ancillary chunks (a lower-case
// first letter: text, gamma, time…) whose CRC is wrong, and their types;
// critical chunks are kept whatever their CRC. A malformed chunk list
// stops the walk and keeps the rest as it is.
func skipBadAncillary(src []byte) ([]byte, []string) {
	const sig = 8
	if len(src) < sig {
		return src, nil
	}
	out := append([]byte(nil), src[:sig]...)
	var skipped []string
	i := sig
	for i+12 <= len(src) {
		n := int(binary.BigEndian.Uint32(src[i:]))
		end := i + 12 + n
		if n < 0 || end > len(src) || end < i {
			break
		}
		typ := src[i+4 : i+8]
		crc := binary.BigEndian.Uint32(src[end-4:])
		if typ[0]&0x20 != 0 && crc32.ChecksumIEEE(src[i+4:end-4]) != crc {
			skipped = append(skipped, SanitizeLine(string(typ)))
		} else {
			out = append(out, src[i:end]...)
		}
		i = end
	}
	return append(out, src[i:]...), skipped
}

// FitCells returns the size in cells (columns, rows) of img scaled to fit in
// maxW×maxH cells, keeping its aspect ratio; a cell is one pixel wide and two
// tall in half-block rendering. It never scales up past one pixel per
// half-cell.
func FitCells(imgW, imgH, maxW, maxH int) (w, h int) {
	if imgW <= 0 || imgH <= 0 || maxW <= 0 || maxH <= 0 {
		return 0, 0
	}
	w, h2 := imgW, imgH // h2 in half-cells
	if w > maxW {
		h2 = h2 * maxW / w
		w = maxW
	}
	if h2 > 2*maxH {
		w = w * 2 * maxH / h2
		h2 = 2 * maxH
	}
	return max(1, w), max(1, (h2+1)/2)
}

// HalfBlocks draws img in w×h cells with Unicode upper half blocks: each cell
// shows two pixels, the top as the foreground color and the bottom as the
// background, in 24-bit color. Pixels are sampled by averaging the source
// area each covers. With o.NoColor it draws an ASCII brightness ramp instead,
// with no escape sequence at all. Transparent pixels blend to the background
// (dark or light per o.Dark).
func HalfBlocks(img image.Image, w, h int, o Options) string {
	if img == nil || w <= 0 || h <= 0 {
		return ""
	}
	bg := color.RGBA{255, 255, 255, 255}
	if o.Dark {
		bg = color.RGBA{0, 0, 0, 255}
	}
	px := samplePixels(img, w, 2*h, bg)
	var b strings.Builder
	b.Grow(w * h * 40)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			top, bot := px[2*y*w+x], px[(2*y+1)*w+x]
			if o.NoColor {
				l := (luma(top) + luma(bot)) / 2
				b.WriteByte(asciiRamp[l*(len(asciiRamp)-1)/255])
				continue
			}
			fmt.Fprintf(&b, "\x1b[38;2;%d;%d;%dm\x1b[48;2;%d;%d;%dm▀", top.R, top.G, top.B, bot.R, bot.G, bot.B)
		}
		if !o.NoColor {
			b.WriteString("\x1b[m")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// luma is the perceived brightness of c, 0..255.
func luma(c color.RGBA) int {
	return (299*int(c.R) + 587*int(c.G) + 114*int(c.B)) / 1000
}

// samplePixels box-averages img down (or nearest-samples it up) to w×h
// pixels, blending alpha over bg.
func samplePixels(img image.Image, w, h int, bg color.RGBA) []color.RGBA {
	bd := img.Bounds()
	sw, sh := bd.Dx(), bd.Dy()
	out := make([]color.RGBA, w*h)
	for y := 0; y < h; y++ {
		y0 := bd.Min.Y + y*sh/h
		y1 := max(y0+1, bd.Min.Y+(y+1)*sh/h)
		for x := 0; x < w; x++ {
			x0 := bd.Min.X + x*sw/w
			x1 := max(x0+1, bd.Min.X+(x+1)*sw/w)
			// Sample at most 4×4 points per box: enough for a thumbnail.
			var r, g, bl, n uint64
			stepY, stepX := max(1, (y1-y0)/4), max(1, (x1-x0)/4)
			for yy := y0; yy < y1; yy += stepY {
				for xx := x0; xx < x1; xx += stepX {
					cr, cg, cb, ca := img.At(xx, yy).RGBA()
					// Blend premultiplied color over bg.
					inv := 0xffff - ca
					r += uint64(cr + inv*uint32(bg.R)/0xff)
					g += uint64(cg + inv*uint32(bg.G)/0xff)
					bl += uint64(cb + inv*uint32(bg.B)/0xff)
					n++
				}
			}
			out[y*w+x] = color.RGBA{uint8(r / n >> 8), uint8(g / n >> 8), uint8(bl / n >> 8), 255}
		}
	}
	return out
}

// KittyImage returns the kitty graphics protocol escapes that display a PNG
// (png must be PNG data) in cols×rows cells at the cursor: a=T transmits and
// places, f=100 says PNG, the payload is base64 in 4096-byte chunks.
func KittyImage(png []byte, cols, rows int) string {
	enc := base64.StdEncoding.EncodeToString(png)
	var b strings.Builder
	first := true
	for len(enc) > 0 {
		n := min(len(enc), kittyChunk)
		more := 0
		if n < len(enc) {
			more = 1
		}
		if first {
			fmt.Fprintf(&b, "\x1b_Ga=T,f=100,q=2,c=%d,r=%d,m=%d;%s\x1b\\", cols, rows, more, enc[:n])
			first = false
		} else {
			fmt.Fprintf(&b, "\x1b_Gm=%d;%s\x1b\\", more, enc[:n])
		}
		enc = enc[n:]
	}
	return b.String()
}

// ITermImage returns the iTerm2 inline image escape (OSC 1337 File) that
// displays an image file's bytes in cols cells of width at the cursor.
func ITermImage(data []byte, cols int) string {
	return fmt.Sprintf("\x1b]1337;File=inline=1;size=%d;width=%d;preserveAspectRatio=1:%s\a",
		len(data), cols, base64.StdEncoding.EncodeToString(data))
}

// Graphics is a terminal image protocol.
type Graphics int

// The image protocols DetectGraphics can report.
const (
	GraphicsHalfBlocks Graphics = iota
	GraphicsKitty
	GraphicsITerm
)

// DetectGraphics picks the image protocol for a terminal from its
// environment (pass os.Getenv): kitty when TERM is xterm-kitty or
// KITTY_WINDOW_ID, Ghostty or WezTerm says so; iTerm2 inline images for
// TERM_PROGRAM iTerm.app or WezTerm; half blocks otherwise, and always inside
// tmux or screen (TMUX, or TERM screen*/tmux*): they swallow these escapes
// unless passthrough is configured, which a program cannot verify.
func DetectGraphics(getenv func(string) string) Graphics {
	term, prog := getenv("TERM"), getenv("TERM_PROGRAM")
	if getenv("TMUX") != "" || strings.HasPrefix(term, "screen") || strings.HasPrefix(term, "tmux") {
		return GraphicsHalfBlocks
	}
	switch {
	case term == "xterm-kitty" || getenv("KITTY_WINDOW_ID") != "" || term == "xterm-ghostty" || prog == "ghostty":
		return GraphicsKitty
	case prog == "iTerm.app" || prog == "WezTerm":
		return GraphicsITerm
	}
	return GraphicsHalfBlocks
}
