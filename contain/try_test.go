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

// TestExecNarrow: with execution narrowed (no subprocess granted), a
// script module runs through its interpreter chain (env included) and may
// start its declared binaries, but no other program.
func TestExecNarrow(t *testing.T) {
	requireFloor(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sh := write("sh-module", "#!/bin/sh\necho x > \"$TMPDIR/f\"\nexec /bin/true\n")
	cases := []struct {
		module   string
		binaries []string
		ok       bool
	}{
		{sh, nil, false},                  // /bin/true was not granted
		{sh, []string{"/bin/true"}, true}, // now it is
	}
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		py := write("py-module", "#!/usr/bin/env python3\nimport json, os, ssl, tempfile\ntempfile.mkstemp()\n")
		pySub := write("py-sub", "#!/usr/bin/env -S python3 -I\nimport subprocess\nsubprocess.run(['/bin/echo'])\n")
		cases = append(cases, struct {
			module   string
			binaries []string
			ok       bool
		}{py, nil, true}, struct {
			module   string
			binaries []string
			ok       bool
		}{pySub, nil, false})
	}
	for _, c := range cases {
		run := t.TempDir()
		cmd := exec.Command(c.module)
		cmd.Env = []string{"TMPDIR=" + run}
		cmd.Dir = run
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		_, _, err := Start(cmd, Spec{Module: c.module, ModuleDir: dir, Binaries: c.binaries, RunDir: run, Limits: DefaultLimits, ExecNarrow: true})
		if err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		if (err == nil) != c.ok {
			t.Errorf("%s with %v: exit %v, want ok=%v\n%s", c.module, c.binaries, err, c.ok, out.String())
		}
	}
}
