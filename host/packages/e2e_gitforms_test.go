package packages_test

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/testreq"
)

// gitDaemon serves root over the git protocol on a loopback port: every
// connection is handed to "git daemon --inetd", so there is no port to
// guess and nothing to wait for.
func gitDaemon(t *testing.T, root string) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		testreq.Missing(t, "git", "git is not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				f, err := c.(*net.TCPConn).File()
				if err != nil {
					return
				}
				defer f.Close()
				cmd := exec.Command(git, "daemon", "--inetd", "--export-all", "--base-path="+root, root)
				cmd.Stdin, cmd.Stdout = f, f
				_ = cmd.Run()
			}()
		}
	}()
	return ln.Addr().String()
}

// fakeSSH writes a GIT_SSH_COMMAND that runs the requested git command
// on a path under root instead of logging in anywhere: ssh:// and
// git@host:path sources then clone from root.
func fakeSSH(t *testing.T, root string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-ssh")
	script := `#!/bin/sh
# the last argument is the remote command: git-upload-pack '<path>'
for last; do :; done
cmd=${last%% *}
path=$(eval "printf %s ${last#* }")
path=${path#/}
exec "$cmd" "` + root + `/$path"
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every git source form docs/packages.md lists installs and loads, each
// against a server on this machine: the smart HTTP backend, a git
// daemon, ssh (a stand-in ssh command), github: and git:github.com
// (rewritten to the HTTP server by git's url.insteadOf), and a bare
// repository by path or file: URL. A file:// URL of a bare repository
// without the git: prefix is refused with the form that clones it.
func TestGitSourceForms(t *testing.T) {
	root := t.TempDir()
	srv, _ := gitServer(t, root)
	mark := filepath.Join(t.TempDir(), "mark")
	gitRepo(t, root, "tools", samplePackage("gf", mark))
	bare := filepath.Join(root, "team", "tools.git")
	// github.com/team/tools (no .git) for the insteadOf rewrite.
	if err := os.Symlink("tools.git", filepath.Join(root, "team", "tools")); err != nil {
		t.Fatal(err)
	}
	daemon := gitDaemon(t, root)
	ssh := fakeSSH(t, root)

	forms := []struct {
		source, host, path string
	}{
		{srv.URL + "/team/tools.git", "127.0.0.1", "team/tools"},
		{"git://" + daemon + "/team/tools.git", "127.0.0.1", "team/tools"},
		{"git:git://" + daemon + "/team/tools@v1", "127.0.0.1", "team/tools"},
		{"ssh://git@example.test/team/tools.git", "example.test", "team/tools"},
		{"git@example.test:team/tools.git", "example.test", "team/tools"},
		{"git:git@example.test:team/tools@v1", "example.test", "team/tools"},
		{"github:team/tools", "github.com", "team/tools"},
		{"git:github.com/team/tools@v1", "github.com", "team/tools"},
		{"git:" + bare, "file", strings.TrimSuffix(strings.TrimPrefix(bare, "/"), ".git")},
		{"git:file://" + bare + "@v1", "file", strings.TrimSuffix(strings.TrimPrefix(bare, "/"), ".git")},
	}
	for _, f := range forms {
		t.Run(strings.ReplaceAll(f.source, "/", "_"), func(t *testing.T) {
			e := newEnv(t)
			e.extra["GIT_SSH_COMMAND"] = ssh
			e.extra["GIT_CONFIG_COUNT"] = "1"
			e.extra["GIT_CONFIG_KEY_0"] = "url." + srv.URL + "/.insteadOf"
			e.extra["GIT_CONFIG_VALUE_0"] = "https://github.com/"
			e.mustRun("install", f.source)
			clone := filepath.Join(e.agentDir, "git", f.host, filepath.FromSlash(f.path))
			if _, err := os.Stat(filepath.Join(clone, ".git")); err != nil {
				t.Fatalf("no clone at %s: %v", clone, err)
			}
			if list := e.mustRun("list"); !strings.Contains(list.stdout, f.source) || !strings.Contains(list.stdout, "extensions: cmd.ts") {
				t.Errorf("list:\n%s", list.stdout)
			}
			a := e.start()
			cmds := commands(t, a)
			if _, ok := cmds["gfcmd"]; !ok {
				t.Errorf("the package's command is missing: %v", cmds)
			}
			a.CloseStdin()
			a.Wait(10e9)
			e.mustRun("remove", f.source)
			if _, err := os.Stat(clone); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the clone is still there (%v)", err)
			}
		})
	}

	t.Run("file URL of a bare repository", func(t *testing.T) {
		e := newEnv(t)
		r := e.run("install", "file://"+bare)
		if r.code == 0 || !strings.Contains(r.stderr, "bare git repository") || !strings.Contains(r.stderr, "git:file://"+bare) {
			t.Errorf("exit %d\nstderr: %s", r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(e.agentDir, "settings.json")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused install wrote the settings (%v)", err)
		}
	})
}
