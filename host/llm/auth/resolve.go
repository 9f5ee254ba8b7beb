package auth

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
)

// CommandTimeout bounds a "!command" value.
const CommandTimeout = 10 * time.Second

var (
	envRef      = regexp.MustCompile(`^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$`)
	bareEnvName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

// Values resolves configuration values that may name a secret instead of
// holding it: "$VAR" or "${VAR}" reads the environment, "!command" runs the
// command through the shell (once per process, with a timeout) and takes
// its trimmed standard output, a bare upper-case name of a set environment
// variable reads it (the older models.json convention), and anything else
// is the value itself.
type Values struct {
	Getenv func(string) string
	Shell  string // default "sh"

	mu    sync.Mutex
	cache map[string]cmdResult
}

type cmdResult struct {
	out string
	err error
}

// Kind says how a raw value is resolved.
type Kind int

// Kinds of raw values.
const (
	KindLiteral Kind = iota
	KindEnv
	KindCommand
)

// KindOf classifies a raw value; for KindEnv it also returns the variable.
func (v *Values) KindOf(raw string) (Kind, string) {
	if strings.HasPrefix(raw, "!") {
		return KindCommand, ""
	}
	if m := envRef.FindStringSubmatch(raw); m != nil {
		name := m[1]
		if name == "" {
			name = m[2]
		}
		return KindEnv, name
	}
	if bareEnvName.MatchString(raw) && v.getenv(raw) != "" {
		return KindEnv, raw
	}
	return KindLiteral, ""
}

func (v *Values) getenv(name string) string {
	if v.Getenv != nil {
		return v.Getenv(name)
	}
	return os.Getenv(name)
}

// Resolve returns the value raw stands for. An unset variable resolves to
// ""; a failing command returns an error that never contains its output.
func (v *Values) Resolve(raw string) (string, error) {
	kind, name := v.KindOf(raw)
	switch kind {
	case KindEnv:
		return v.getenv(name), nil
	case KindCommand:
		return v.run(strings.TrimSpace(raw[1:]))
	}
	return raw, nil
}

func (v *Values) run(command string) (string, error) {
	if command == "" {
		return "", fmt.Errorf("empty command")
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if r, ok := v.cache[command]; ok {
		return r.out, r.err
	}
	shell := v.Shell
	if shell == "" {
		shell = "sh"
	}
	ctx, cancel := context.WithTimeout(context.Background(), CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, "-c", command)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = nil // discarded: it may echo secrets
	cmd.Stdin = nil
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var r cmdResult
	switch {
	case ctx.Err() != nil:
		r.err = fmt.Errorf("command timed out after %s", CommandTimeout)
	case err != nil:
		r.err = fmt.Errorf("command failed: %v", err)
	default:
		r.out = strings.TrimSpace(stdout.String())
		if r.out == "" {
			r.err = fmt.Errorf("command printed nothing")
		}
	}
	if v.cache == nil {
		v.cache = map[string]cmdResult{}
	}
	v.cache[command] = r
	return r.out, r.err
}
