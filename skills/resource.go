package skills

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"unicode/utf8"
)

// Resource encodings (ReadResource).
const (
	// EncodingText returns the file as UTF-8 text (the default).
	EncodingText = "text"
	// EncodingBase64 returns the file's bytes in standard base64.
	EncodingBase64 = "base64"
)

// MaxResourceBytes is the largest resource ReadResource returns: 8 MiB,
// so one read cannot fill memory or an agent's context unbounded.
const MaxResourceBytes = 8 << 20

// ErrOutsideSkill is wrapped when a location names something outside the
// skill's folder (absolute, "..", or a symlink out of it).
var ErrOutsideSkill = errors.New("leads outside its folder")

// Resource is one resource as read.
type Resource struct {
	// Location is the slash-relative path read.
	Location string `json:"location"`
	// Encoding is EncodingText or EncodingBase64.
	Encoding string `json:"encoding"`
	// Content is the text, or the base64 of the bytes.
	Content string `json:"content"`
	// Bytes is the file's size.
	Bytes int `json:"bytes"`
}

// ReadResource reads the regular file loc (slash-relative) under the skill
// folder dir, confined to it: the path is resolved beneath dir by os.Root
// (openat beneath the folder's handle; a symlink may not lead out), and
// a file bigger than MaxResourceBytes is refused. encoding "" is text;
// text that is not UTF-8, or holds a NUL byte, is refused with a hint to ask for base64.
func ReadResource(dir, loc, encoding string) (Resource, error) {
	if encoding == "" {
		encoding = EncodingText
	}
	if encoding != EncodingText && encoding != EncodingBase64 {
		return Resource{}, fmt.Errorf("resource %q: encoding %q is neither %q nor %q", loc, encoding, EncodingText, EncodingBase64)
	}
	rel, data, err := readResource(dir, loc)
	if err != nil {
		return Resource{}, err
	}
	r := Resource{Location: rel, Encoding: encoding, Bytes: len(data)}
	if encoding == EncodingBase64 {
		r.Content = base64.StdEncoding.EncodeToString(data)
		return r, nil
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return Resource{}, fmt.Errorf("resource %q is not UTF-8 text (or holds a NUL byte); read it as %s", loc, EncodingBase64)
	}
	r.Content = string(data)
	return r, nil
}

// ReadResourceBytes is ReadResource's bytes, unencoded, with the same
// confinement and limit.
func ReadResourceBytes(dir, loc string) ([]byte, error) {
	_, data, err := readResource(dir, loc)
	return data, err
}

// readResource reads loc beneath dir (confined, capped) and returns its
// cleaned location and bytes.
func readResource(dir, loc string) (string, []byte, error) {
	rel, err := confine(loc)
	if err != nil {
		return "", nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", nil, fmt.Errorf("skill folder %s: %w", dir, err)
	}
	defer root.Close()
	data, err := readCapped(root, rel, MaxResourceBytes)
	if err != nil {
		// os.Root reports an escape with an unexported error whose text
		// is "path escapes from parent".
		if strings.Contains(err.Error(), "path escapes") {
			return "", nil, fmt.Errorf("resource %q: %w", loc, ErrOutsideSkill)
		}
		return "", nil, fmt.Errorf("resource %q: %w", loc, err)
	}
	return rel, data, nil
}

// confine checks that loc is a relative path that stays below the folder
// and returns it cleaned.
func confine(loc string) (string, error) {
	if loc == "" || strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, `\`) || strings.ContainsRune(loc, 0) {
		return "", fmt.Errorf("resource %q: %w: give a relative path", loc, ErrOutsideSkill)
	}
	c := path.Clean(strings.ReplaceAll(loc, `\`, "/"))
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("resource %q: %w", loc, ErrOutsideSkill)
	}
	return c, nil
}
