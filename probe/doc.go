// Package probe is the one owner of the media probes: ffprobe for video and
// audio, pdftotext for a PDF's first pages. `modbay render` and the
// cockpit's viewers both ask it, so both get the same timeout, the same
// output cap and the same sanitized results (STYLE.md "one owner per
// engine"). A probe is optional: without the program, or when it fails,
// the rendering says type and size only. Probes read files only; the
// render package never runs programs.
package probe
