package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrAborted is returned by the built-in tools when their context is
// cancelled.
var ErrAborted = errors.New("Operation aborted")

// aborted returns ErrAborted when ctx is done.
func aborted(ctx context.Context) error {
	if ctx.Err() != nil {
		return ErrAborted
	}
	return nil
}

// ResolvePath turns a path argument into an absolute, cleaned path: a
// leading "@" (as in file mentions) is dropped, "~" and "~/..." expand to the
// home directory, and relative paths are taken relative to cwd.
func ResolvePath(cwd, p string) string {
	p = strings.TrimPrefix(p, "@")
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		base := cwd
		if base == "" {
			base, _ = os.Getwd()
		}
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// stringArg reads a string argument. A missing or null argument yields
// ("", false, nil).
func stringArg(args map[string]any, name string) (string, bool, error) {
	v, ok := args[name]
	if !ok || v == nil {
		return "", false, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", false, fmt.Errorf("Invalid argument %q: expected a string, got %s", name, jsonType(v))
	}
	return s, true, nil
}

// requiredString reads a string argument that must be present.
func requiredString(args map[string]any, name string) (string, error) {
	s, ok, err := stringArg(args, name)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("Missing required argument %q", name)
	}
	return s, nil
}

// numberArg reads a numeric argument. Numbers given as strings ("10") are
// accepted too, since models sometimes quote them.
func numberArg(args map[string]any, name string) (float64, bool, error) {
	v, ok := args[name]
	if !ok || v == nil {
		return 0, false, nil
	}
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case float32:
		f = float64(n)
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	case int32:
		f = float64(n)
	case uint:
		f = float64(n)
	case uint64:
		f = float64(n)
	case json.Number:
		x, err := n.Float64()
		if err != nil {
			return 0, false, fmt.Errorf("Invalid argument %q: expected a number, got %q", name, n.String())
		}
		f = x
	case string:
		x, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if err != nil {
			return 0, false, fmt.Errorf("Invalid argument %q: expected a number, got %q", name, n)
		}
		f = x
	default:
		return 0, false, fmt.Errorf("Invalid argument %q: expected a number, got %s", name, jsonType(v))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false, fmt.Errorf("Invalid argument %q: expected a finite number", name)
	}
	return f, true, nil
}

// intArg reads an integer argument.
func intArg(args map[string]any, name string) (int, bool, error) {
	f, ok, err := numberArg(args, name)
	if err != nil || !ok {
		return 0, ok, err
	}
	if f != math.Trunc(f) {
		return 0, false, fmt.Errorf("Invalid argument %q: expected an integer, got %v", name, f)
	}
	if f > math.MaxInt32 {
		f = math.MaxInt32
	}
	if f < math.MinInt32 {
		f = math.MinInt32
	}
	return int(f), true, nil
}

// boolArg reads a boolean argument ("true"/"false" strings are accepted).
func boolArg(args map[string]any, name string) (bool, error) {
	v, ok := args[name]
	if !ok || v == nil {
		return false, nil
	}
	switch b := v.(type) {
	case bool:
		return b, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(b)) {
		case "true":
			return true, nil
		case "false", "":
			return false, nil
		}
	}
	return false, fmt.Errorf("Invalid argument %q: expected a boolean, got %s", name, jsonType(v))
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, float32, int, int64, int32, uint, uint64, json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// noticeBlock formats notices as "\n\n[a. b]", or "" when there are none.
func noticeBlock(notices []string) string {
	if len(notices) == 0 {
		return ""
	}
	return "\n\n[" + strings.Join(notices, ". ") + "]"
}
