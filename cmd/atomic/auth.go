package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/auth"
)

const authUsage = `Usage:
  atomic auth login <provider> [--api-key]
  atomic auth logout <provider>
  atomic auth print-api-key --provider <provider> | --model <model>
  atomic auth check [--provider <provider> | --model <model>] [--json] [--credentials]

Store and remove API keys, print the key a provider resolves to, or check
that a provider is ready. Keys are stored in auth.json in the agent
directory (~/.atomic/agent/auth.json, mode 0600).

Commands:
  login <provider>   ask for an API key on the terminal (not echoed) and store it;
                     with --api-key and no terminal, the key is read from stdin
  logout <provider>  remove the stored key; environment variables and models.json stay
  print-api-key      print the resolved API key to stdout
  check              print ready, not_ready or invalid, exit with 0, 1 or 2;
                     without --provider or --model: every provider and where its
                     credential comes from

Options:
  --provider <name>  the provider (print-api-key, check)
  --model <model>    the provider of this model (print-api-key, check)
  --json             check: the result as JSON
  --credentials      check: print the credential when ready (with --json: in it)

Account sign-in (OAuth for subscriptions) is not supported yet.`

// authCheckResult is one provider's check, in the shape of pi's
// `auth check --json`.
type authCheckResult struct {
	Status      string `json:"status"`
	Provider    string `json:"provider"`
	Reason      string `json:"reason,omitempty"`
	AuthType    string `json:"authType,omitempty"`
	Credentials string `json:"credentials,omitempty"`
	// Source and Label say where a ready credential comes from (only in
	// the listing of every provider).
	Source string `json:"source,omitempty"`
	Label  string `json:"label,omitempty"`
}

// runAuth runs `atomic auth ...` and returns the exit status.
func runAuth(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || slices.Contains(args, "-h") || slices.Contains(args, "--help") {
		fmt.Fprintln(stdout, authUsage)
		return 0
	}
	cmd, rest := args[0], args[1:]
	fs := pflag.NewFlagSet("atomic auth "+cmd, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	provider := fs.String("provider", "", "")
	model := fs.String("model", "", "")
	asJSON := fs.Bool("json", false, "")
	withCred := fs.Bool("credentials", false, "")
	fs.Bool("no-refresh", false, "") // pi's; there is no OAuth credential to refresh
	apiKey := fs.Bool("api-key", false, "")
	noBrowser := fs.Bool("no-browser", false, "")
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "atomic auth %s: %s\n", cmd, fmt.Sprintf(format, a...))
		return code
	}
	if err := fs.Parse(rest); err != nil {
		return fail(2, "%v (see atomic auth --help)", err)
	}
	only := func(allowed ...string) error {
		var bad []string
		fs.Visit(func(f *pflag.Flag) {
			if !slices.Contains(allowed, f.Name) {
				bad = append(bad, "--"+f.Name)
			}
		})
		if len(bad) > 0 {
			return fmt.Errorf("%s does not apply to auth %s", strings.Join(bad, ", "), cmd)
		}
		return nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail(1, "%v", err)
	}
	// Problems with auth.json or models.json are told on stderr.
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	creds := app.LoadCredentials(config.ResolvePaths(cwd).AgentDir, log)
	switch cmd {
	case "login":
		if err := only("api-key", "no-browser"); err != nil {
			return fail(2, "%v", err)
		}
		if *noBrowser {
			return fail(2, "account sign-in is not supported yet; atomic auth login stores an API key (README, Credentials)")
		}
		if fs.NArg() != 1 {
			return fail(2, "give one provider (atomic auth login <provider>)")
		}
		return authLogin(creds, fs.Arg(0), *apiKey, stdin, stdout, stderr)
	case "logout":
		if err := only(); err != nil {
			return fail(2, "%v", err)
		}
		if fs.NArg() != 1 {
			return fail(2, "give one provider (atomic auth logout <provider>)")
		}
		return authLogout(creds, fs.Arg(0), stdout, stderr)
	case "print-api-key":
		if err := only("provider", "model"); err != nil {
			return fail(2, "%v", err)
		}
		if fs.NArg() > 0 {
			return fail(2, "auth commands take --provider and --model, not %q", fs.Arg(0))
		}
		name, err := authProvider(creds, *provider, *model)
		if err != nil {
			return fail(1, "%v", err)
		}
		if name == "" {
			return fail(1, "give --provider <provider> or --model <model>")
		}
		key, _ := creds.Resolver.APIKey(name)
		if key == "" {
			return fail(1, "no API key for %s (atomic auth check lists where credentials come from)", name)
		}
		fmt.Fprintln(stdout, key) // asked for explicitly: the one place a key is printed
		return 0
	case "check":
		if err := only("provider", "model", "json", "credentials", "no-refresh"); err != nil {
			return fail(2, "%v", err)
		}
		if fs.NArg() > 0 {
			return fail(2, "auth commands take --provider and --model, not %q", fs.Arg(0))
		}
		if *provider == "" && *model == "" {
			return authCheckAll(creds, *asJSON, stdout)
		}
		name, err := authProvider(creds, *provider, *model)
		if err != nil {
			return fail(2, "%v", err)
		}
		res := checkProvider(creds, name)
		if *withCred && res.Status == "ready" {
			if key, _ := creds.Resolver.APIKey(name); key != "" {
				res.Credentials = key
			} else {
				res = authCheckResult{Status: "not_ready", Provider: name, Reason: "credential_not_available"}
			}
		}
		res.Source, res.Label = "", ""
		switch {
		case *asJSON:
			b, _ := json.Marshal(res)
			fmt.Fprintln(stdout, string(b))
		case res.Credentials != "":
			fmt.Fprintln(stdout, res.Credentials)
		default:
			fmt.Fprintln(stdout, res.Status)
		}
		switch res.Status {
		case "ready":
			return 0
		case "not_ready":
			return 1
		}
		return 2
	case "print-bearer-token":
		return fail(1, "OAuth bearer tokens come from account sign-in, which is not supported yet")
	}
	return fail(2, "unknown command %q; use atomic auth login, logout, print-api-key or check", cmd)
}

// authProvider names the provider of --provider and --model.
func authProvider(c *app.Credentials, provider, model string) (string, error) {
	if model == "" {
		return strings.TrimSpace(provider), nil
	}
	r := llm.ResolveRef(llm.RefRequest{Text: model, Provider: provider}, c.Models, c.Resolver.Usable)
	if r.Model.ID == "" {
		if r.Target != nil {
			return r.Target.Provider, nil
		}
		return "", fmt.Errorf("unable to resolve model %q", model)
	}
	return r.Model.Provider, nil
}

// checkProvider is pi's check of one provider: ready with an API key,
// not_ready when the provider is unknown or has no credential.
func checkProvider(c *app.Credentials, name string) authCheckResult {
	if !slices.Contains(c.Providers(), name) {
		return authCheckResult{Status: "not_ready", Provider: name, Reason: "provider_not_found"}
	}
	st := c.Resolver.Status(name)
	if !st.Configured {
		if c.Resolver.Usable(name) { // a local server configured without a key
			return authCheckResult{Status: "ready", Provider: name, Source: "none needed"}
		}
		return authCheckResult{Status: "not_ready", Provider: name, Reason: "credentials_not_configured"}
	}
	return authCheckResult{Status: "ready", Provider: name, AuthType: "api_key", Source: st.Source, Label: st.Label}
}

// authCheckAll lists every provider with its state and the source of its
// credential (ours: pi requires --provider or --model).
func authCheckAll(c *app.Credentials, asJSON bool, stdout io.Writer) int {
	var all []authCheckResult
	for _, name := range c.Providers() {
		all = append(all, checkProvider(c, name))
	}
	if asJSON {
		b, _ := json.Marshal(all)
		fmt.Fprintln(stdout, string(b))
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVIDER\tSTATUS\tFROM")
	for _, r := range all {
		from := sourceText(r)
		if r.Status != "ready" {
			if vars := auth.EnvVars[r.Provider]; len(vars) > 0 {
				from = "set " + strings.Join(vars, " or ") + ", or atomic auth login " + r.Provider
			} else {
				from = "atomic auth login " + r.Provider
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Provider, r.Status, from)
	}
	tw.Flush()
	return 0
}

func sourceText(r authCheckResult) string {
	switch r.Source {
	case auth.SourceStored:
		return "auth.json"
	case auth.SourceEnvironment:
		return "$" + r.Label
	case auth.SourceModelsKey:
		if r.Label != "" {
			return "models.json ($" + r.Label + ")"
		}
		return "models.json"
	case auth.SourceModelsCommand:
		return "models.json (command)"
	}
	return r.Source
}

// maxKeyInput bounds an API key read from stdin.
const maxKeyInput = 64 << 10

func authLogin(c *app.Credentials, name string, apiKey bool, stdin *os.File, stdout, stderr io.Writer) int {
	if !slices.Contains(c.Providers(), name) {
		fmt.Fprintf(stderr, "atomic auth login: unknown provider %q\nProviders: %s\n", name, strings.Join(sortedCopy(c.Providers()), ", "))
		return 1
	}
	var key string
	switch {
	case term.IsTerminal(int(stdin.Fd())):
		fmt.Fprintf(stderr, "API key for %s: ", name)
		b, err := term.ReadPassword(int(stdin.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			fmt.Fprintln(stderr, "atomic auth login: cannot read the key:", err)
			return 1
		}
		key = string(b)
	case apiKey:
		line, err := bufio.NewReader(io.LimitReader(stdin, maxKeyInput)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			fmt.Fprintln(stderr, "atomic auth login: cannot read the key from stdin:", err)
			return 1
		}
		key = line
	default:
		fmt.Fprintln(stderr, "atomic auth login: needs a terminal to ask for the key, or --api-key with the key on stdin")
		return 1
	}
	key = strings.TrimSpace(key)
	if key == "" {
		fmt.Fprintln(stderr, "atomic auth login: no key given; nothing stored")
		return 1
	}
	if err := c.Resolver.Store(name, key); err != nil {
		fmt.Fprintln(stderr, "atomic auth login:", err)
		return 1
	}
	fmt.Fprintf(stdout, "Saved API key for %s. Credentials saved to %s\n", name, c.Resolver.AuthFile)
	return 0
}

func authLogout(c *app.Credentials, name string, stdout, stderr io.Writer) int {
	if !slices.Contains(c.Providers(), name) && !c.Resolver.HasStored(name) {
		fmt.Fprintf(stderr, "atomic auth logout: unknown provider %q\n", name)
		return 1
	}
	removed, err := c.Resolver.Logout(name)
	if err != nil {
		fmt.Fprintln(stderr, "atomic auth logout:", err)
		return 1
	}
	if !removed {
		fmt.Fprintf(stdout, "No stored credentials for %s. Environment variables and models.json are unchanged.\n", name)
		return 0
	}
	fmt.Fprintf(stdout, "Removed the stored API key for %s. Environment variables and models.json are unchanged.\n", name)
	return 0
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
