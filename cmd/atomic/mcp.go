package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/mcp"
	"github.com/atomic-go/atomic/host/trust"
)

const mcpUsage = `usage:
  atomic mcp add <name> [-l] [--env K=V]... [--description D] [--exposure E] [--timeout S] -- <command> [args...]
  atomic mcp add <name> [-l] --url URL [--header K=V]... [--description D] [--exposure E] [--timeout S]
  atomic mcp remove <name> [-l]
  atomic mcp list

-l (--local) uses the project's .atomic/mcp.json instead of ~/.atomic/agent/mcp.json.
Values may name secrets: ${VAR} reads the environment, "!command" runs a command.`

// runMCP serves "atomic mcp …": it edits and checks mcp.json without
// starting a session (no extensions are loaded).
func runMCP(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "atomic mcp: give a command")
		fmt.Fprintln(stderr, mcpUsage)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(stdout, mcpUsage) // help goes to stdout, as the main --help
		return 0
	}
	// -h/--help after a subcommand shows the usage too; after "--" it
	// belongs to the server command.
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" {
			fmt.Fprintln(stdout, mcpUsage)
			return 0
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "atomic:", err)
		return 1
	}
	agentDir := config.ResolvePaths(cwd).AgentDir
	switch args[0] {
	case "add":
		return mcpAdd(args[1:], agentDir, cwd, stdout, stderr)
	case "remove", "rm":
		return mcpRemove(args[1:], agentDir, cwd, stdout, stderr)
	case "list", "ls":
		return mcpList(agentDir, cwd, stdout)
	}
	fmt.Fprintf(stderr, "atomic mcp: unknown command %q\n%s\n", args[0], mcpUsage)
	return 2
}

func mcpFile(local bool, agentDir, cwd string) string {
	if local {
		return mcp.ProjectFile(cwd)
	}
	return mcp.UserFile(agentDir)
}

func mcpAdd(args []string, agentDir, cwd string, stdout, stderr io.Writer) int {
	fail := func(msg string, a ...any) int {
		fmt.Fprintf(stderr, "atomic mcp add: "+msg+"\n", a...)
		return 2
	}
	var name, url, desc, exposure string
	var timeout float64
	local := false
	env, headers := map[string]string{}, map[string]string{}
	var command []string
	keyValue := func(flag, v string, into map[string]string) bool {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return false
		}
		into[k] = val
		return true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() (string, bool) {
			if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "--") {
				return v, true
			}
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		flag, _, _ := strings.Cut(a, "=")
		switch {
		case a == "--":
			command = args[i+1:]
			i = len(args)
		case a == "-l" || a == "--local":
			local = true
		case flag == "--url" || flag == "--header" || flag == "--env" || a == "-e" || flag == "--description" || flag == "--exposure" || flag == "--timeout":
			v, ok := value()
			if !ok {
				return fail("%s needs a value", flag)
			}
			switch flag {
			case "--url":
				url = v
			case "--header":
				if !keyValue(flag, v, headers) {
					return fail("--header wants Name=Value, got %q", v)
				}
			case "--env", "-e":
				if !keyValue(flag, v, env) {
					return fail("--env wants NAME=value, got %q", v)
				}
			case "--description":
				desc = v
			case "--exposure":
				exposure = v
			case "--timeout":
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || f <= 0 {
					return fail("--timeout wants a positive number of seconds, got %q", v)
				}
				timeout = f
			}
		case strings.HasPrefix(a, "-"):
			return fail("unknown flag %s\n%s", a, mcpUsage)
		case name == "":
			name = a
		default:
			return fail("unexpected argument %q (put the server command after --)", a)
		}
	}
	if name == "" {
		return fail("the server needs a name\n%s", mcpUsage)
	}
	entry := map[string]any{}
	switch {
	case url != "" && len(command) > 0:
		return fail("give either --url or a command after --, not both")
	case url != "":
		entry["url"] = url
		if len(headers) > 0 {
			entry["headers"] = headers
		}
		if len(env) > 0 {
			return fail("--env is for stdio servers; use --header for an HTTP server")
		}
	case len(command) > 0:
		entry["command"] = command[0]
		if len(command) > 1 {
			entry["args"] = command[1:]
		}
		if len(env) > 0 {
			entry["env"] = env
		}
		if len(headers) > 0 {
			return fail("--header is for HTTP servers")
		}
	default:
		return fail("give --url URL or the server command after --\n%s", mcpUsage)
	}
	if desc != "" {
		entry["description"] = desc
	}
	if exposure != "" {
		entry["exposure"] = exposure
	}
	if timeout > 0 {
		entry["timeout"] = timeout
	}
	path := mcpFile(local, agentDir, cwd)
	replaced, err := mcp.AddServer(path, name, entry)
	if err != nil {
		fmt.Fprintln(stderr, "atomic mcp add:", err)
		return 1
	}
	verb := "Added"
	if replaced {
		verb = "Replaced"
	}
	fmt.Fprintf(stdout, "%s MCP server %q in %s\n", verb, name, path)
	if local {
		fmt.Fprintln(stdout, "Project servers are used only in a trusted project (--trust-project).")
	}
	return 0
}

func mcpRemove(args []string, agentDir, cwd string, stdout, stderr io.Writer) int {
	local := false
	name := ""
	for _, a := range args {
		switch {
		case a == "-l" || a == "--local":
			local = true
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(stderr, "atomic mcp remove: unknown flag %s\n", a)
			return 2
		case name == "":
			name = a
		default:
			fmt.Fprintf(stderr, "atomic mcp remove: unexpected argument %q\n", a)
			return 2
		}
	}
	if name == "" {
		fmt.Fprintln(stderr, "atomic mcp remove: the server needs a name")
		return 2
	}
	path := mcpFile(local, agentDir, cwd)
	removed, err := mcp.RemoveServer(path, name)
	if err != nil {
		fmt.Fprintln(stderr, "atomic mcp remove:", err)
		return 1
	}
	if !removed {
		fmt.Fprintf(stderr, "atomic mcp remove: %s has no server %q\n", path, name)
		return 1
	}
	fmt.Fprintf(stdout, "Removed MCP server %q from %s\n", name, path)
	return 0
}

// mcpList connects every enabled server and prints its state, tool count
// and error; it exits 1 when an entry is invalid or an enabled server is
// not connected.
func mcpList(agentDir, cwd string, stdout io.Writer) int {
	trusted, _ := extensions.DecideProjectTrust(agentDir, cwd, trust.FlagAsk)
	loaded := mcp.Load(agentDir, cwd, trusted)
	code := 0
	for _, e := range loaded.Errors {
		fmt.Fprintln(stdout, "invalid:", e)
		code = 1
	}
	if mcp.ProjectFileSkipped(cwd, trusted) {
		fmt.Fprintf(stdout, "skipped: %s (the project is not trusted)\n", mcp.ProjectFile(cwd))
	}
	if len(loaded.Servers) == 0 {
		if code == 0 {
			fmt.Fprintf(stdout, "No MCP servers configured (%s).\n", loaded.UserFile)
		}
		return code
	}
	m := mcp.NewManager(mcp.Options{Cwd: func() string { return cwd }})
	defer m.Close()
	m.Apply(loaded.Servers, nil)
	wait := 0.0
	for _, s := range loaded.Servers {
		wait = max(wait, s.Config.TimeoutSeconds())
	}
	m.WaitAll(context.Background(), time.Duration(wait*float64(time.Second))+time.Second)
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tTOOLS\tTRANSPORT\tEXPOSURE\tSOURCE")
	var problems []string
	for _, st := range m.Statuses() {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", st.Name, st.State, st.ToolCount, st.Transport, st.Exposure, st.Source)
		if st.Enabled && st.State != mcp.StateConnected {
			code = 1
			msg := st.Error
			if msg == "" {
				msg = "not connected"
			}
			p := fmt.Sprintf("%s: %s", st.Name, msg)
			if st.StderrTail != "" {
				p += "\n  stderr:\n    " + strings.ReplaceAll(st.StderrTail, "\n", "\n    ")
			}
			problems = append(problems, p)
		}
	}
	tw.Flush()
	for _, p := range problems {
		fmt.Fprintln(stdout, "error:", p)
	}
	return code
}
