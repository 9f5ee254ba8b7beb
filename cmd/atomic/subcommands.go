package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"
)

// subcommands are the first words atomic takes as a command rather than
// a prompt; --help lists them. Add a subcommand here and in run.
var subcommands = []struct{ name, what string }{
	{"install", "install a package and add it to the settings (npm:, git:, a URL, a local path)"},
	{"remove", "remove a package from the settings (also: uninstall)"},
	{"list", "list the configured packages (--json)"},
	{"update", "update the packages, or one"},
	{"mcp", "add, remove and list MCP servers (mcp.json)"},
	{"auth", "store, remove, print and check providers' API keys (auth.json)"},
	{"help", "show this help"},
}

// commandWords read as a command someone expected atomic to have, not as
// a prompt: given alone, they are refused instead of sent to the model.
var commandWords = map[string]bool{
	"add": true, "config": true, "configure": true, "doctor": true, "export": true,
	"import": true, "info": true, "init": true, "login": true, "logout": true, "ls": true,
	"models": true, "rm": true, "search": true, "serve": true, "sessions": true, "settings": true,
	"setup": true, "show": true, "status": true, "upgrade": true, "version": true,
}

var commandLike = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// checkCommandWord refuses a first argument that looks like a subcommand
// and is not one (atomic instal ./x, atomic lst, atomic auth login): a
// typo must not become a prompt to the model, at a cost. It applies only
// when no argument reads as prose (none has a space); "atomic -- word"
// and atomic -p "word" still send the word.
func checkCommandWord(args []string) error {
	if len(args) == 0 || !commandLike.MatchString(args[0]) {
		return nil
	}
	for _, a := range args {
		if strings.ContainsAny(a, " \t\n") {
			return nil
		}
	}
	word := args[0]
	asPrompt := fmt.Sprintf(`to send it to the model, put -- before it: atomic -- %s`, strings.Join(args, " "))
	if near := nearestSubcommand(word); near != "" {
		return fmt.Errorf("unknown command %q: did you mean atomic %s? (%s)", word, near, asPrompt)
	}
	if commandWords[word] {
		hint := ""
		switch word {
		case "version":
			hint = "; the version is atomic --version"
		case "login", "logout":
			hint = "; API keys are stored with atomic auth " + word + " <provider>"
		case "models":
			hint = "; the model is chosen with --provider and --model"
		}
		return fmt.Errorf("%q is not an atomic command (commands: %s; see atomic --help)%s (%s)", word, subcommandNames(), hint, asPrompt)
	}
	return nil
}

// nearestSubcommand returns the subcommand within one edit of word (two
// for longer words), or "".
func nearestSubcommand(word string) string {
	limit := 1
	if len(word) > 5 {
		limit = 2
	}
	for _, c := range subcommands {
		if c.name != word && editDistance(word, c.name) <= limit {
			return c.name
		}
	}
	if word != "uninstall" && editDistance(word, "uninstall") <= 2 {
		return "uninstall"
	}
	return ""
}

func subcommandNames() string {
	var names []string
	for _, c := range subcommands {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

// printCommands writes the commands section of --help.
func printCommands(w io.Writer) {
	fmt.Fprintln(w, "Commands:")
	for _, c := range subcommands {
		fmt.Fprintf(w, "  atomic %-8s %s\n", c.name, c.what)
	}
	fmt.Fprintln(w, "  (atomic <command> --help shows a command's flags; atomic -- <words> sends words that look like a command to the model)")
	fmt.Fprintln(w)
}
