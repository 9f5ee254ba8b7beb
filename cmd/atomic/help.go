package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/extensions"
)

// printExtensionFlags ends --help with the flags the extensions register
// (pi 1.6 loads its extensions for --help too): the extensions of a
// normal start (-e, packages, discovered ones) are loaded, and nothing
// else runs: no session, no session_start, no MCP servers, no installs.
// Failures to load are left to the normal start to report.
func printExtensionFlags(f *cliFlags, out io.Writer, stderr io.Writer) {
	cwd, err := os.Getwd()
	if err != nil {
		return
	}
	level := slog.LevelError + 4 // quiet: --help prints help only
	if f.logLevel != "" {
		_ = level.UnmarshalText([]byte(f.logLevel))
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	rt, err := app.New(app.Options{
		Cwd: cwd, Mode: app.ModePrint, NoSession: true, LoadOnly: true, Offline: true,
		Extensions: f.extensions, NoExtensions: f.noExtensions, Trust: f.trust(),
		NoSkills: true, NoPromptTemplates: true, NoContextFiles: true,
		HostVersion: buildVersion(), Log: logger,
	})
	if err != nil {
		return
	}
	defer rt.Close()
	writeExtensionFlags(out, rt.ExtensionFlags(), cwd)
}

// writeExtensionFlags writes the "Extension flags" section: each flag, a
// <value> placeholder for a string flag, and its description (or the
// extension that registered it), as pi lays it out.
func writeExtensionFlags(out io.Writer, flags []extensions.FlagRef, cwd string) {
	if len(flags) == 0 {
		return
	}
	fmt.Fprint(out, "\nExtension flags:\n")
	for _, fl := range flags {
		name := "  --" + fl.Spec.Name
		if fl.Spec.Type == "string" {
			name += " <value>"
		}
		desc := fl.Spec.Description
		if desc == "" {
			p := fl.Path
			if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
				p = rel
			}
			desc = "registered by " + p
		}
		if fl.Spec.Default != "" && fl.Spec.Type == "string" {
			desc += fmt.Sprintf(" (default %q)", fl.Spec.Default)
		}
		if len(name) < 30 {
			name += strings.Repeat(" ", 30-len(name))
		} else {
			name += " "
		}
		fmt.Fprintln(out, name+desc)
	}
}

// warnUnknownFlags names, in one warning, the unknown flags that no
// extension registered (never their values: one may be a key).
func warnUnknownFlags(rt *app.Runtime, f *cliFlags, stderr io.Writer) {
	registered := map[string]bool{}
	for _, fl := range rt.ExtensionFlags() {
		registered[fl.Spec.Name] = true
	}
	var names []string
	for _, n := range f.unknownFlagNames() {
		if !registered[strings.TrimPrefix(n, "--")] {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		fmt.Fprintf(stderr, "atomic: warning: unknown flags, registered by no extension, ignored (values not shown): %s\n", strings.Join(names, " "))
	}
}
