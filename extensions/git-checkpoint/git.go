package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// repo runs git in the project directory. Snapshots use a private index
// file, so the user's index and files are never touched.
type repo struct {
	dir string
}

func (r repo) git(ctx context.Context, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

func (r repo) ok(ctx context.Context) bool {
	out, err := r.git(ctx, nil, "rev-parse", "--is-inside-work-tree")
	return err == nil && out == "true"
}

// snapshot commits the working tree (tracked and untracked, ignoring what
// .gitignore ignores) and returns the commit id.
func (r repo) snapshot(ctx context.Context) (string, error) {
	gitDir, err := r.git(ctx, nil, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return "", err
	}
	top, err := r.git(ctx, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	idx, err := os.CreateTemp(gitDir, "atomic-checkpoint-index-*")
	if err != nil {
		return "", err
	}
	idx.Close()
	os.Remove(idx.Name()) // git creates it
	defer os.Remove(idx.Name())
	env := []string{"GIT_INDEX_FILE=" + idx.Name()}
	root := repo{dir: top}
	if _, err := root.git(ctx, env, "add", "-A", "."); err != nil {
		return "", err
	}
	tree, err := root.git(ctx, env, "write-tree")
	if err != nil {
		return "", err
	}
	args := []string{"commit-tree", tree, "-m", "atomic checkpoint"}
	if head, err := r.git(ctx, nil, "rev-parse", "--verify", "-q", "HEAD"); err == nil && head != "" {
		args = append(args, "-p", head)
	}
	ident := []string{"GIT_AUTHOR_NAME=atomic", "GIT_AUTHOR_EMAIL=atomic@localhost", "GIT_COMMITTER_NAME=atomic", "GIT_COMMITTER_EMAIL=atomic@localhost"}
	return r.git(ctx, ident, args...)
}

func (r repo) updateRef(ctx context.Context, ref, commit string) error {
	_, err := r.git(ctx, nil, "update-ref", ref, commit)
	return err
}

// restore makes the working tree match a snapshot: files of the snapshot
// are written back and files created since are removed (ignored files are
// left alone). The index and branch are not changed.
func (r repo) restore(ctx context.Context, commit string) error {
	top, err := r.git(ctx, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	root := repo{dir: top}
	now, err := root.snapshot(ctx)
	if err != nil {
		return err
	}
	added, err := root.git(ctx, nil, "diff", "--name-only", "--diff-filter=A", "--no-renames", commit, now)
	if err != nil {
		return err
	}
	for _, f := range strings.Split(added, "\n") {
		if f != "" {
			os.Remove(filepath.Join(top, f))
		}
	}
	gitDir, err := root.git(ctx, nil, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return err
	}
	idx := filepath.Join(gitDir, "atomic-restore-index")
	defer os.Remove(idx)
	env := []string{"GIT_INDEX_FILE=" + idx}
	if _, err := root.git(ctx, env, "read-tree", commit); err != nil {
		return err
	}
	_, err = root.git(ctx, env, "checkout-index", "-a", "-f")
	return err
}
