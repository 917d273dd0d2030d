//go:build linux

package contain

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// TestInterpretersRun: the allowlist is enough for the interpreters
// modules are written in to start, import their standard libraries, run a
// subprocess and use TMPDIR, contained and without a network grant.
func TestInterpretersRun(t *testing.T) {
	requireFloor(t)
	for _, argv := range [][]string{
		{"/usr/bin/python3", "-c", "import json, os, ssl, subprocess, tempfile; assert subprocess.run(['/bin/echo'], capture_output=True).returncode == 0; tempfile.mkstemp(); assert os.cpu_count()"},
		{"/bin/bash", "-c", "set -e; echo x > \"$TMPDIR/f\"; /bin/cat \"$TMPDIR/f\" >/dev/null"},
		{"/bin/sh", "-c", "set -e; echo x > \"$TMPDIR/f\"; /bin/cat \"$TMPDIR/f\" >/dev/null"},
		{"/usr/bin/perl", "-e", "use POSIX; print qq(ok\\n)"},
		{"/usr/bin/node", "-e", "if (require('os').cpus().length < 1) process.exit(3); require('fs').writeFileSync(process.env.TMPDIR + '/n', 'x')"},
	} {
		if _, err := os.Stat(argv[0]); err != nil {
			t.Logf("%s: not installed", argv[0])
			continue
		}
		dir := t.TempDir()
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = []string{"TMPDIR=" + dir}
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if _, _, err := Start(cmd, Spec{RunDir: dir, Limits: DefaultLimits}); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s contained: %v\n%s", argv[0], err, out.String())
		}
	}
}
