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

	"github.com/atomic-go/atomic/internal/proc"
)

// CommandTimeout bounds a "!command" value.
const CommandTimeout = 10 * time.Second

var (
	envRef = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$`)
	})
	bareEnvName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`) })
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
	if m := envRef().FindStringSubmatch(raw); m != nil {
		name := m[1]
		if name == "" {
			name = m[2]
		}
		return KindEnv, name
	}
	if bareEnvName().MatchString(raw) && v.getenv(raw) != "" {
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
	cmd := exec.Command(shell, "-c", command)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = nil // discarded: it may echo secrets
	cmd.Stdin = nil
	// Its own process group: a command that hangs is ended with whatever
	// it started (a credential helper's children).
	err := proc.Run(ctx, cmd, time.Second)
	var r cmdResult
	switch {
	case ctx.Err() != nil:
		r.err = fmt.Errorf("command timed out after %s", CommandTimeout)
	case err != nil:
		r.err = fmt.Errorf("command failed: %w", err)
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

// Expand resolves a value that may embed environment variables: a value
// that starts with "!" is a command (the whole value, as in Resolve);
// otherwise every "$VAR" and "${VAR}" is replaced by the variable, "$$"
// stands for "$" and "$!" for "!". A variable that is unset or empty is an
// error naming it (never the value). MCP server env and headers use it.
func (v *Values) Expand(raw string) (string, error) {
	if strings.HasPrefix(raw, "!") {
		return v.run(strings.TrimSpace(raw[1:]))
	}
	var b strings.Builder
	var missing []string
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '$' || i+1 >= len(raw) {
			b.WriteByte(c)
			continue
		}
		next := raw[i+1]
		switch {
		case next == '$' || next == '!':
			b.WriteByte(next)
			i++
		case next == '{':
			end := strings.IndexByte(raw[i+2:], '}')
			name := ""
			if end >= 0 {
				name = raw[i+2 : i+2+end]
			}
			if end < 0 || envName().FindString(name) != name {
				b.WriteByte(c)
				continue
			}
			missing = v.expandVar(&b, name, missing)
			i += 2 + end
		default:
			n := envName().FindString(raw[i+1:])
			if n == "" {
				b.WriteByte(c)
				continue
			}
			missing = v.expandVar(&b, n, missing)
			i += len(n)
		}
	}
	switch len(missing) {
	case 0:
		return b.String(), nil
	case 1:
		return "", fmt.Errorf("environment variable %s is not set", missing[0])
	}
	return "", fmt.Errorf("environment variables %s are not set", strings.Join(missing, ", "))
}

var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`) })

func (v *Values) expandVar(b *strings.Builder, name string, missing []string) []string {
	val := v.getenv(name)
	if val == "" {
		return append(missing, name)
	}
	b.WriteString(val)
	return missing
}
