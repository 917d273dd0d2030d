package runner

import (
	"strings"
	"testing"

	"modbay/contain"
	"modbay/modproto"
)

// TestLikelyCause: a refused write outside the rw roots, a refused start
// of an undeclared program, a missing program and a write past the
// file size bound are named; a refused
// path beneath a rw root, or an error that names no refusal, is not.
func TestLikelyCause(t *testing.T) {
	t.Parallel()
	roots := map[string]modproto.Root{
		"workspace": {Path: "/w", Mode: modproto.RootReadWrite},
		"output":    {Path: "/o", Mode: modproto.RootReadWrite},
		"input":     {Path: "/in", Mode: modproto.RootReadOnly},
	}
	cases := []struct{ name, stderr, message, want string }{
		{"python", "Traceback…\nPermissionError: [Errno 13] Permission denied: '/home/a/.cache/x.json'\n", "",
			"likely refused by containment: /home/a/.cache/x.json is outside the rw roots (output, workspace)"},
		{"shell", "sh: 3: cannot create /in/out.txt: Read-only file system\n", "",
			"/in/out.txt is outside the rw roots"},
		{"message", "", "EROFS: read-only file system, open '/etc/x'", "/etc/x is outside"},
		{"program", "sh: 1: /bin/sh: Permission denied", "", "/bin/sh: running it needs it in permissions.subprocess, reading it a read root holding it"},
		{"missing", "sh: 1: ffmpeg: not found", "", `likely a missing program ("sh: 1: ffmpeg: not found")`},
		{"beneath a root", "open /w/sub/x: permission denied", "", ""},
		{"no refusal", "ValueError: /etc/x is odd", "", ""},
		{"file too large", "OSError: [Errno 27] File too large\n", "", "likely the host's bound on one file's size, limits.file_size_mb (1024 MiB)"},
	}
	for _, c := range cases {
		got := LikelyCause(roots, c.stderr, c.message, contain.DefaultLimits)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
