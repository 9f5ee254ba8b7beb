package main

// The flags that do one thing and exit without a session: --list-models
// and --export.

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/llm"
)

// modelPatterns splits --models into its patterns (nil when not given).
func (f *cliFlags) modelPatterns() []string {
	if strings.TrimSpace(f.models) == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(f.models, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// listModels is --list-models [search]: the models that have credentials
// (models.json and auth included), as pi 1.6 prints them, then exit.
func listModels(f *cliFlags, stdout, stderr io.Writer) int {
	logger, closeLog, err := newLogger(f, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "atomic:", err)
		return 2
	}
	defer closeLog()
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "atomic:", err)
		return 1
	}
	rt, err := app.New(app.Options{
		Cwd: cwd, Mode: app.ModePrint, NoSession: true, NoExtensions: true,
		Trust: f.trust(), Offline: true, HostVersion: buildVersion(), Log: logger,
	})
	if err != nil {
		fmt.Fprintln(stderr, "atomic:", err)
		return 1
	}
	defer rt.Close()
	search := *f.listModels
	models := rt.ListModels(search)
	if len(models) == 0 {
		if search != "" {
			fmt.Fprintf(stdout, "No models matching %q\n", search)
		} else {
			fmt.Fprintln(stdout, "No models available. Set a provider's API key (for example ANTHROPIC_API_KEY) or add models to models.json.")
		}
		return 0
	}
	writeModelTable(stdout, models)
	return 0
}

// writeModelTable prints pi's columns: provider, model, context, max-out,
// thinking, images; each padded to its widest cell, two spaces apart.
func writeModelTable(w io.Writer, models []llm.Model) {
	rows := [][]string{{"provider", "model", "context", "max-out", "thinking", "images"}}
	for _, m := range models {
		rows = append(rows, []string{m.Provider, m.ID, tokenCount(m.ContextWindow), tokenCount(m.MaxTokens), yesNo(m.Reasoning), yesNo(hasInput(m, "image"))})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = c + strings.Repeat(" ", widths[i]-len(c))
		}
		fmt.Fprintln(w, strings.Join(cells, "  "))
	}
}

// tokenCount writes 200000 as 200K and 1000000 as 1M, as pi does.
func tokenCount(n int) string {
	switch {
	case n >= 1_000_000:
		if n%1_000_000 == 0 {
			return fmt.Sprintf("%dM", n/1_000_000)
		}
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1_000:
		if n%1_000 == 0 {
			return fmt.Sprintf("%dK", n/1_000)
		}
		return fmt.Sprintf("%.1fK", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func hasInput(m llm.Model, kind string) bool {
	for _, in := range m.Input {
		if in == kind {
			return true
		}
	}
	return false
}

// exportSession is --export <file> [output]: the page written, its path on
// stdout, as pi 1.6 says it.
func exportSession(f *cliFlags, stdout, stderr io.Writer) int {
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "atomic:", err)
		return 1
	}
	out := ""
	if len(f.messages) > 0 {
		out = f.messages[0]
	}
	path, err := app.ExportSessionFile(f.export, out, cwd)
	if err != nil {
		fmt.Fprintln(stderr, "atomic: --export:", err)
		return 1
	}
	fmt.Fprintf(stdout, "Exported to: %s\n", path)
	return 0
}
