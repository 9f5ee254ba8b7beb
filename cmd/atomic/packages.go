package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/packages"
	"github.com/atomic-go/atomic/host/trust"

	"github.com/spf13/pflag"
)

// packageCommands are the subcommands that manage packages without
// starting a session.
var packageCommands = map[string]bool{"install": true, "remove": true, "uninstall": true, "list": true, "update": true}

// packageCommand runs "atomic install|remove|uninstall|list|update …".
// handled is false when args name none of them.
func packageCommand(args []string, stdout, stderr io.Writer) (code int, handled bool) {
	if len(args) == 0 || !packageCommands[args[0]] {
		return 0, false
	}
	name := args[0]
	if name == "uninstall" {
		name = "remove"
	}
	fs := pflag.NewFlagSet("atomic "+name, pflag.ContinueOnError)
	fs.SetOutput(stdout) // help goes to stdout, as the main --help
	usageErr := func(msg string) (int, bool) {
		fmt.Fprintf(stderr, "atomic %s: %s (see atomic %s --help)\n", name, msg, args[0])
		return 2, true
	}
	local := fs.BoolP("local", "l", false, "use the project's .atomic/settings.json instead of the user's settings")
	record := fs.Bool("trust-project", false, "trust this project (and record it) so that its packages can be changed")
	approve := fs.BoolP("approve", "a", false, "trust this project for this command only (nothing recorded)")
	noApprove := fs.Bool("no-approve", false, "(-na) ignore the project's settings for this command, whatever is recorded")
	asJSON := fs.Bool("json", false, "print the list as JSON (list)")
	help := fs.BoolP("help", "h", false, "show this help")
	fs.Usage = func() {
		fmt.Fprintf(stdout, "Usage:\n  atomic install <source> [-l]\n  atomic remove <source> [-l]\n  atomic list [--json]\n  atomic update [source]\n\n"+
			"Sources: npm:<name>[@version], git:<host>/<path>[@ref], https://… or ssh://… git URLs, git@host:path, local paths.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	flagArgs := slices.Clone(args[1:])
	for i, a := range flagArgs {
		if a == "--" {
			break
		}
		if a == "-na" { // pi's short form
			flagArgs[i] = "--no-approve"
		}
	}
	if err := fs.Parse(flagArgs); err != nil {
		return usageErr(err.Error())
	}
	flag := trust.FlagAsk
	switch {
	case *noApprove && (*approve || *record):
		return usageErr("--no-approve cannot be combined with --approve or --trust-project")
	case *noApprove:
		flag = trust.FlagDeny
	case *record:
		flag = trust.FlagRecord
	case *approve:
		flag = trust.FlagApprove
	}
	if *help {
		fs.Usage()
		return 0, true
	}
	rest := fs.Args()
	fail := func(err error) (int, bool) {
		fmt.Fprintf(stderr, "atomic %s: %s\n", name, oneLine(err.Error()))
		return 1, true
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail(err)
	}
	paths := config.ResolvePaths(cwd)
	// With -a the change is followed only where trust was recorded
	// before: -a itself records nothing.
	follow := true
	if flag == trust.FlagApprove {
		follow, _ = app.DecideProjectTrust(paths.AgentDir, cwd, trust.FlagAsk)
	}
	trusted, err := app.DecideProjectTrust(paths.AgentDir, cwd, flag)
	if err != nil {
		fmt.Fprintf(stderr, "atomic %s: cannot record project trust: %v\n", name, err)
	}
	loaded, err := config.Load(paths, trusted, nil)
	if err != nil {
		return fail(err)
	}
	ops := packages.Ops{AgentDir: paths.AgentDir, Cwd: cwd, Installer: &packages.Installer{
		AgentDir: paths.AgentDir, Cwd: cwd, NpmCommand: loaded.Settings.NpmCommand, Output: stderr,
	}}
	scope := packages.ScopeUser
	if *local {
		scope = packages.ScopeProject
		if !trusted && name != "list" {
			return fail(fmt.Errorf("the project %s is not trusted, so its packages are not changed (add --trust-project to trust it and record that, or -a for this command)", cwd))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// A project settings change is the user's own: the recorded trust
	// follows it (the fingerprint covers the settings file).
	retrust := func() {
		if scope == packages.ScopeProject && follow {
			if err := app.RecordProjectChange(paths.AgentDir, cwd); err != nil {
				fmt.Fprintf(stderr, "atomic %s: cannot record project trust: %v\n", name, err)
			}
		}
	}

	switch name {
	case "install", "remove":
		if len(rest) != 1 {
			return usageErr(fmt.Sprintf("give one source, got %d arguments", len(rest)))
		}
		if name == "install" {
			fmt.Fprintf(stderr, "Installing %s…\n", rest[0])
			written, changed, err := ops.Install(ctx, rest[0], scope)
			if err != nil {
				return fail(err)
			}
			file := packages.SettingsFile(paths.AgentDir, cwd, scope)
			if !changed {
				// As pi: installed again (which repairs a damaged
				// install), the settings left as they were.
				fmt.Fprintf(stdout, "Installed %s again; the %s settings already list it (%s)\n", written, scope, file)
				return 0, true
			}
			retrust()
			fmt.Fprintf(stdout, "Installed %s (%s settings: %s)\n", written, scope, file)
			return 0, true
		}
		if err := ops.Remove(ctx, rest[0], scope); err != nil {
			return fail(err)
		}
		retrust()
		fmt.Fprintf(stdout, "Removed %s (%s settings)\n", rest[0], scope)
		return 0, true
	case "update":
		if len(rest) > 1 {
			return usageErr("give at most one source")
		}
		target := ""
		if len(rest) == 1 {
			target = rest[0]
		}
		scopes := []string{packages.ScopeUser}
		if trusted {
			scopes = []string{packages.ScopeProject, packages.ScopeUser}
		}
		results, err := ops.Update(ctx, target, scopes)
		if err != nil {
			return fail(err)
		}
		code := 0
		for _, r := range results {
			switch {
			case r.Err != nil:
				code = 1
				fmt.Fprintf(stderr, "atomic update: %s (%s): %s\n", r.Source, r.Scope, oneLine(r.Err.Error()))
			case r.Skipped != "":
				fmt.Fprintf(stdout, "%s (%s): %s, skipped\n", r.Source, r.Scope, r.Skipped)
			case r.From == r.To:
				fmt.Fprintf(stdout, "%s (%s): up to date (%s)\n", r.Source, r.Scope, short(r.To))
			default:
				fmt.Fprintf(stdout, "%s (%s): %s -> %s\n", r.Source, r.Scope, orNone(short(r.From)), short(r.To))
			}
		}
		if len(results) == 0 {
			fmt.Fprintln(stdout, "No packages configured.")
		}
		return code, true
	}
	// list
	if len(rest) != 0 {
		return usageErr(fmt.Sprintf("unexpected argument %q", rest[0]))
	}
	res := packages.Resolve(ctx, packages.Options{AgentDir: paths.AgentDir, Cwd: cwd, ProjectTrusted: trusted, Installer: ops.Installer})
	untrusted := !trusted && fileExists(packages.SettingsFile(paths.AgentDir, cwd, packages.ScopeProject))
	if *asJSON {
		list := res.Packages
		if list == nil {
			list = []packages.Package{}
		}
		out := map[string]any{"packages": list, "projectTrusted": trusted}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		return 0, true
	}
	printList(stdout, res, paths.AgentDir, cwd, untrusted)
	return 0, true
}

func printList(w io.Writer, res packages.Resolved, agentDir, cwd string, untrusted bool) {
	for _, scope := range []string{packages.ScopeProject, packages.ScopeUser} {
		var list []packages.Package
		for _, p := range res.Packages {
			if p.Scope == scope {
				list = append(list, p)
			}
		}
		file := packages.SettingsFile(agentDir, cwd, scope)
		title := "User"
		if scope == packages.ScopeProject {
			title = "Project"
			if untrusted {
				fmt.Fprintf(w, "Project packages (%s): not read, the project is not trusted\n", file)
				continue
			}
			if len(list) == 0 {
				continue
			}
		}
		fmt.Fprintf(w, "%s packages (%s):\n", title, file)
		if len(list) == 0 {
			fmt.Fprintln(w, "  (none)")
		}
		for _, p := range list {
			state := "installed"
			if p.Version != "" {
				state += " " + short(p.Version)
			}
			switch {
			case p.Shadowed:
				state = "shadowed by the project's entry"
			case p.Error != "":
				state = p.Error
			}
			flags := ""
			if p.Filtered {
				flags += " (filtered)"
			}
			if p.Pinned {
				flags += " (pinned)"
			}
			fmt.Fprintf(w, "  %s%s\n    %s\n", p.Source, flags, state)
			if p.Root != "" && p.Error == "" && !p.Shadowed {
				fmt.Fprintf(w, "    at %s\n", p.Root)
			}
			for _, t := range packages.Types {
				files := p.Resources[t]
				if len(files) == 0 {
					continue
				}
				names := make([]string, len(files))
				for i, f := range files {
					names[i] = resourceName(t, f)
				}
				sort.Strings(names)
				fmt.Fprintf(w, "    %s: %s\n", t, strings.Join(names, ", "))
			}
		}
	}
	for _, pr := range res.Problems {
		if pr.Source == "" {
			fmt.Fprintf(w, "problem: %s: %s\n", pr.Path, pr.Message)
		}
	}
}

// resourceName is how list names a contributed file.
func resourceName(typ, path string) string {
	base := filepath.Base(path)
	switch typ {
	case packages.TypeSkills:
		if base == "SKILL.md" {
			return filepath.Base(filepath.Dir(path))
		}
		return strings.TrimSuffix(base, ".md")
	case packages.TypePrompts:
		return "/" + strings.TrimSuffix(base, ".md")
	case packages.TypeExtensions:
		if base == "index.ts" || base == "index.js" {
			return filepath.Base(filepath.Dir(path)) + "/" + base
		}
	}
	return base
}

func short(v string) string {
	if len(v) == 40 && strings.Trim(v, "0123456789abcdef") == "" {
		return v[:7]
	}
	return v
}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
