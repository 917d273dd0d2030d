package examples

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"modbay/modproto"
)

// Schema and artifact kind ids of the transcode example.
const (
	transcodeVideoRequest = "transcode.video.request/v1"
	transcodeVideoResult  = "transcode.video.result/v1"
	// kindTranscodeVideo is the transcoded media file.
	kindTranscodeVideo = "transcode.video/v1"
)

// Names, defaults and limits of transcode.video.
const (
	// transcodeBinary is the subprocess transcode.video needs. No such
	// program exists: the example shows "needs setup" until a person maps
	// the name under binaries: in config.yaml (docs/protocol.md §4).
	transcodeBinary = "ffmpeg-modbay-example"
	// transcodeProfile is a config requirement the module does not probe,
	// to show "not probed" (docs/protocol.md §9).
	transcodeProfile       = "transcode.profile"
	transcodeDefaultFormat = "mp4"
	transcodeDefaultHeight = 720
	// transcodeMinHeight and transcodeMaxHeight bound the output height in
	// pixels: from a thumbnail strip to 4K.
	transcodeMinHeight = 120
	transcodeMaxHeight = 2160
	// transcodeDir is where outputs go, under the workspace.
	transcodeDir = "transcode"
	// transcodeStderrTail is how many bytes of the binary's stderr an error
	// carries in its details.
	transcodeStderrTail = 2048
)

// transcodeFormats maps each output format to its media type and
// presentation (docs/protocol.md §10).
var transcodeFormats = map[string]struct{ mediaType, presentation string }{
	"mp4":  {"video/mp4", "video"},
	"webm": {"video/webm", "video"},
	"gif":  {"image/gif", "image"},
}

// transcodeModule declares the "Media transcode" example.
func transcodeModule() *module {
	return &module{
		id:   "transcode",
		name: "Media transcode",
		caps: []*capability{{
			decl: modproto.Capability{
				ID:              "transcode.video",
				Title:           "Transcode a video",
				Summary:         "Re-encode a workspace video to mp4, webm or gif at a chosen height with " + transcodeBinary + ".",
				RequestSchema:   transcodeVideoRequest,
				ResultSchema:    transcodeVideoResult,
				ArtifactSchemas: []string{kindTranscodeVideo},
				Effects:         localFree,
				Skills:          []string{"transcode-setup"},
			},
			run: runTranscode,
		}},
		requestSchemas: map[string]string{
			transcodeVideoRequest: `{
				"type": "object",
				"title": "Transcode a video",
				"properties": {
					"source": {"type": "string", "title": "Video", "minLength": 1,
						"description": "Path of the source video, relative to the workspace."},
					"format": {"type": "string", "title": "Format", "enum": ["mp4", "webm", "gif"], "default": "mp4"},
					"height": {"type": "integer", "title": "Height (px)", "minimum": 120, "maximum": 2160, "default": 720}
				},
				"required": ["source"],
				"additionalProperties": false
			}`,
		},
		resultSchemas: map[string]string{
			transcodeVideoResult: `{
				"type": "object",
				"properties": {
					"path": {"type": "string", "description": "Workspace-relative path of the output."},
					"format": {"type": "string"},
					"height": {"type": "integer"},
					"bytes": {"type": "integer"}
				},
				"required": ["path", "format", "height", "bytes"]
			}`,
		},
		artifactSchemas: map[string]string{
			kindTranscodeVideo: `{
				"type": "object",
				"description": "The transcoded media file (video/mp4, video/webm or image/gif).",
				"properties": {"format": {"enum": ["mp4", "webm", "gif"]}}
			}`,
		},
		skills: []bundleDoc{{
			id: "transcode-setup", title: "Setting up transcode",
			summary: "Why transcode needs setup, how to map its binary, and what it does once mapped.",
			path:    "skills/transcode-setup/SKILL.md",
		}},
		overlays: []bundleDoc{{
			id: "transcode-agent", title: "Media transcode: agent guidance", path: "agents/transcode.md",
		}},
		permissions: modproto.Permissions{
			FilesystemRead:  []string{"workspace"},
			FilesystemWrite: []string{"workspace"},
			Subprocess:      []string{transcodeBinary},
		},
		requirements: []modproto.Requirement{
			{
				Kind: "binary", Name: transcodeBinary, Available: new(false),
				Detail: "install " + transcodeBinary + " and put it on PATH, or map it under binaries: in config.yaml",
			},
			{
				// Available is nil, so the key is omitted: not probed.
				Kind: "config", Name: transcodeProfile,
				Detail: "optional encoding profile (e.g. \"web\" or \"archive\"); the module does not check it",
			},
		},
	}
}

// runTranscode is transcode.video. Without a resolved path for
// ffmpeg-modbay-example in the request's binaries it fails
// missing_requirement (details {kind: "binary", name}); with one, it runs
// `<bin> -hide_banner -y -i <input> -vf scale=-2:<height> <output>` with an
// environment of only TMPDIR, streams the binary's stderr to its own, and
// reports the output as a transcode.video/v1 artifact under
// transcode/<run>/ in the workspace. The input must stay inside the
// workspace (path_outside_root) and be a regular file (invalid_request);
// a failing binary is provider_failure with its exit code and stderr tail.
func runTranscode(c *call) (any, error) {
	bin := c.req.Binaries[transcodeBinary]
	if bin == "" {
		return nil, newError(modproto.CodeMissingRequirement, map[string]any{"kind": "binary", "name": transcodeBinary},
			"required binary %q was not found; install it and put it on PATH, or map it under binaries: in config.yaml", transcodeBinary)
	}
	if !filepath.IsAbs(bin) {
		return nil, newError(modproto.CodeMissingRequirement, map[string]any{"kind": "binary", "name": transcodeBinary, "path": bin},
			"binary %q resolved to %q, which is not an absolute path", transcodeBinary, bin)
	}
	formats := []string{"mp4", "webm", "gif"}
	in, err := parseInput(c.req.Input, transcodeVideoRequest, []string{"source", "format", "height"})
	if err != nil {
		return nil, err
	}
	src := in.str("source", "", true)
	format := in.enum("format", transcodeDefaultFormat, formats)
	height := in.integer("height", transcodeDefaultHeight, transcodeMinHeight, transcodeMaxHeight)
	if err := in.check(); err != nil {
		return nil, err
	}
	ws, err := c.root("workspace", true)
	if err != nil {
		return nil, err
	}
	srcPath, err := confinedInput(ws, "workspace", "source", src)
	if err != nil {
		return nil, err
	}

	stem := strings.TrimSuffix(path.Base(filepath.ToSlash(src)), path.Ext(src))
	if stem == "" || stem == "." {
		stem = "output"
	}
	rel := path.Join(transcodeDir, c.runSuffix(), stem+"."+format)
	outDir, err := confinedMkdir(ws, "workspace", filepath.Dir(filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	outPath := filepath.Join(outDir, path.Base(rel))
	args := []string{"-hide_banner", "-y", "-i", srcPath, "-vf", "scale=-2:" + strconv.Itoa(height), outPath}
	c.progress("running %s on %s (%s, %dp)", transcodeBinary, src, format, height)
	cmd := exec.CommandContext(c.ctx, bin, args...)
	cmd.Env = []string{"TMPDIR=" + os.Getenv("TMPDIR")}
	cmd.Dir = ws
	var tail tailBuffer
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, newError(modproto.CodeMissingRequirement, map[string]any{"kind": "binary", "name": transcodeBinary, "path": bin},
			"cannot start %s (%s): %v", transcodeBinary, bin, err)
	}
	relayLines(stderr, c.stderr, &tail) // reads to EOF before Wait, as StderrPipe requires
	if err := cmd.Wait(); err != nil {
		if c.ctx.Err() != nil {
			return nil, c.ctx.Err()
		}
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return nil, newError(modproto.CodeProviderFailure, map[string]any{"binary": transcodeBinary, "exit_code": code, "stderr": tail.String()},
			"%s failed: %v", transcodeBinary, err)
	}
	digest, size, err := digestRegularFile(outPath)
	if err != nil {
		return nil, newError(modproto.CodeProviderFailure, map[string]any{"binary": transcodeBinary, "path": rel},
			"%s exited 0 but left no output file at %s: %v", transcodeBinary, rel, err)
	}
	f := transcodeFormats[format]
	c.exec.Artifacts = append(c.exec.Artifacts, modproto.Artifact{
		ID: "video", Kind: kindTranscodeVideo, Path: rel, Root: "workspace", Presentation: f.presentation,
		MediaType: f.mediaType, Bytes: size, Digest: digest,
		Title: fmt.Sprintf("%s as %s, %dp", path.Base(src), format, height),
	})
	return map[string]any{"path": rel, "format": format, "height": height, "bytes": size}, nil
}

// digestRegularFile streams the regular file at p (not through a symlink,
// never a FIFO or device) through sha256 and returns its digest and size.
func digestRegularFile(p string) (string, int64, error) {
	st, err := os.Lstat(p)
	if err != nil {
		return "", 0, err
	}
	if !st.Mode().IsRegular() {
		return "", 0, errors.New("not a regular file")
	}
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	return modproto.DigestReader(f)
}

// confinedInput resolves the input path rel (field field) inside the root
// rootPath: it must be relative without "..", resolve (symlinks included)
// inside the root (path_outside_root), and be a regular file
// (invalid_request).
func confinedInput(rootPath, rootName, field, rel string) (string, error) {
	outside := newError(modproto.CodePathOutsideRoot, map[string]any{"field": field, "path": rel, "root": rootName},
		"%s %q is not inside the %s root", field, rel, rootName)
	if !modproto.IsRelativePath(rel) || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", outside
	}
	realRoot, err := filepath.EvalSymlinks(rootPath)
	if err != nil {
		return "", err
	}
	p, err := filepath.EvalSymlinks(filepath.Join(rootPath, filepath.FromSlash(rel)))
	if err != nil {
		return "", invalidField(transcodeVideoRequest, field, map[string]any{"path": rel}, "%s %q does not exist in the %s root", field, rel, rootName)
	}
	if !within(realRoot, p) {
		return "", outside
	}
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return "", invalidField(transcodeVideoRequest, field, map[string]any{"path": rel}, "%s %q is not a regular file", field, rel)
	}
	return p, nil
}

// relayLines copies r line by line to w (the cockpit's stderr tail) and
// keeps the last bytes in tail.
func relayLines(r io.Reader, w io.Writer, tail *tailBuffer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		fmt.Fprintf(w, "%s: %s\n", transcodeBinary, line)
		tail.Write(append(line, '\n'))
	}
	_, _ = io.Copy(io.Discard, r)
}

// tailBuffer keeps the last transcodeStderrTail bytes written to it.
type tailBuffer struct{ b []byte }

// Write implements io.Writer, keeping only the tail.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - transcodeStderrTail; over > 0 {
		t.b = t.b[over:]
	}
	return len(p), nil
}

// String returns the tail, without a trailing newline.
func (t *tailBuffer) String() string { return string(bytes.TrimRight(t.b, "\n")) }
