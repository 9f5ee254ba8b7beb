package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/atomic-go/atomic/sdk"
)

// Config is the gate's configuration, read from the first of
// ./.atomic/permission-gate.json and <agentDir>/permission-gate.json
// (or the file given with --permission-gate-config). Every field is
// optional; a missing field keeps the default.
type Config struct {
	// Dangerous are regular expressions; a bash command matching one asks
	// for confirmation. Defaults: DefaultDangerous.
	Dangerous []string `json:"dangerous"`
	// ExtraDangerous are added to Dangerous (to extend the defaults).
	ExtraDangerous []string `json:"extraDangerous"`
	// Allow are regular expressions; a bash command matching one is never
	// asked about.
	Allow []string `json:"allow"`
	// ProtectOutsideProject asks before write and edit calls whose path is
	// outside the project (default true).
	ProtectOutsideProject *bool `json:"protectOutsideProject"`
	// AllowedPaths are directories outside the project that may be written
	// without asking (for example "/tmp").
	AllowedPaths []string `json:"allowedPaths"`
	// ConfirmTimeoutMs bounds a confirmation dialog; no answer blocks
	// (default 120000).
	ConfirmTimeoutMs int `json:"confirmTimeoutMs"`
}

// DefaultDangerous are the built-in patterns of dangerous commands.
var DefaultDangerous = []string{
	`\brm\s+(-[a-zA-Z]*[rRf][a-zA-Z]*\s+)+`, // rm -rf, rm -r, rm -f
	`\bsudo\b`,
	`\bgit\s+push\b.*(--force|-f\b)`,
	`\bgit\s+reset\s+--hard\b`,
	`\bgit\s+clean\s+-[a-zA-Z]*f`,
	`\bmkfs(\.\w+)?\b`,
	`\bdd\s+.*\bof=/dev/`,
	`\bchmod\s+(-R\s+)?0?777\b`,
	`\bchown\s+-R\b`,
	`(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z)?sh\b`,
	`\b(shutdown|reboot|halt|poweroff)\b`,
	`>\s*/dev/sd[a-z]`,
	`:\(\)\s*\{\s*:\|:&\s*\};:`,
}

// gate is the compiled configuration.
type gate struct {
	dangerous, allow []*regexp.Regexp
	outside          bool
	allowedPaths     []string
	timeout          time.Duration
}

func compile(c Config) (*gate, error) {
	g := &gate{outside: true, timeout: 2 * time.Minute}
	pats := DefaultDangerous
	if c.Dangerous != nil {
		pats = c.Dangerous
	}
	pats = append(append([]string(nil), pats...), c.ExtraDangerous...)
	for _, p := range pats {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("dangerous pattern %q: %v", p, err)
		}
		g.dangerous = append(g.dangerous, re)
	}
	for _, p := range c.Allow {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("allow pattern %q: %v", p, err)
		}
		g.allow = append(g.allow, re)
	}
	if c.ProtectOutsideProject != nil {
		g.outside = *c.ProtectOutsideProject
	}
	g.allowedPaths = c.AllowedPaths
	if c.ConfirmTimeoutMs > 0 {
		g.timeout = time.Duration(c.ConfirmTimeoutMs) * time.Millisecond
	}
	return g, nil
}

// loadConfig reads the first config file that exists.
func loadConfig(paths ...string) (Config, string, error) {
	for _, p := range paths {
		if p == "" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var c Config
		if err := json.Unmarshal(data, &c); err != nil {
			return Config{}, p, fmt.Errorf("%s: %v", p, err)
		}
		return c, p, nil
	}
	return Config{}, "", nil
}

// dangerousCommand returns the pattern a command matches, or "".
func (g *gate) dangerousCommand(cmd string) string {
	for _, re := range g.allow {
		if re.MatchString(cmd) {
			return ""
		}
	}
	for _, re := range g.dangerous {
		if re.MatchString(cmd) {
			return re.String()
		}
	}
	return ""
}

// outsideProject reports whether path (relative to cwd) leaves the project.
func (g *gate) outsideProject(cwd, path string) bool {
	if !g.outside || path == "" {
		return false
	}
	path = strings.TrimPrefix(path, "@")
	if strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[2:])
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	path = filepath.Clean(path)
	if within(cwd, path) {
		return false
	}
	for _, a := range g.allowedPaths {
		if within(filepath.Clean(a), path) {
			return false
		}
	}
	return true
}

func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// check decides a tool call: nil to let it run, or a block.
func (g *gate) check(ctx *sdk.Context, ev *sdk.ToolCallEvent) (*sdk.ToolCallResult, error) {
	var title, detail string
	switch ev.ToolName {
	case "bash":
		cmd := ev.StringInput("command")
		if pat := g.dangerousCommand(cmd); pat != "" {
			title, detail = "Allow a dangerous command?", cmd
		}
	case "write", "edit":
		path := ev.StringInput("path")
		if g.outsideProject(ctx.Cwd, path) {
			title, detail = fmt.Sprintf("Allow %s outside the project?", ev.ToolName), path
		}
	}
	if title == "" {
		return nil, nil
	}
	if !ctx.HasUI {
		return &sdk.ToolCallResult{Block: true, Reason: fmt.Sprintf("permission-gate: %s blocked (no user to confirm): %s", ev.ToolName, detail)}, nil
	}
	ok, err := ctx.UI.Confirm(title, detail, sdk.DialogOptions{Timeout: g.timeout})
	if err != nil {
		return nil, err
	}
	if !ok {
		return &sdk.ToolCallResult{Block: true, Reason: fmt.Sprintf("permission-gate: the user did not allow %s: %s", ev.ToolName, detail)}, nil
	}
	return nil, nil
}
