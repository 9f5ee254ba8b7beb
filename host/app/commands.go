package app

import (
	"context"

	"github.com/atomic-go/atomic/host/resources"
	"github.com/atomic-go/atomic/sdk/rpcwire"
)

// SlashCommand is one entry of get_commands.
type SlashCommand = rpcwire.SlashCommand

// Completion is one argument completion of get_command_completions.
type Completion = rpcwire.Completion

// CommandProvider supplies the extension commands: the extension host
// implements it and installs it with SetCommandProvider.
type CommandProvider interface {
	// Commands returns the registered extension commands, in order.
	Commands() []SlashCommand
	// Completions completes the arguments of a command. ok is false when
	// the command is unknown or has no completer.
	Completions(ctx context.Context, command, argumentPrefix string) (completions []Completion, ok bool)
}

// SetCommandProvider installs the source of extension commands.
func (rt *Runtime) SetCommandProvider(p CommandProvider) {
	rt.res.mu.Lock()
	rt.res.commands = p
	rt.res.mu.Unlock()
}

func (rt *Runtime) commandProvider() CommandProvider {
	rt.res.mu.Lock()
	defer rt.res.mu.Unlock()
	return rt.res.commands
}

// Commands lists the slash commands a client can send with prompt:
// extension commands, then prompt templates, then skills, each in
// precedence order.
func (rt *Runtime) Commands() []SlashCommand {
	out := []SlashCommand{}
	if p := rt.commandProvider(); p != nil {
		for _, c := range p.Commands() {
			c.Source = "extension"
			out = append(out, c)
		}
	}
	return append(out, rt.ResourceCommands()...)
}

// StartedCommands is Commands once the start-up session_start has been
// handled: what it registers is listed, as in pi, for the client's
// get_commands. (Commands itself does not wait: an extension may ask for
// the list from its session_start handler.)
func (rt *Runtime) StartedCommands() []SlashCommand {
	rt.extReady()
	rt.extStarted()
	return rt.Commands()
}

// ResourceCommands lists the prompt templates, then the skills (as
// "skill:<name>"), as get_commands shows them.
func (rt *Runtime) ResourceCommands() []SlashCommand {
	var out []SlashCommand
	set := rt.resourceSet()
	if set == nil {
		return out
	}
	for _, t := range set.Templates {
		info := t.Info
		out = append(out, SlashCommand{
			Name: t.Name, Description: t.Description, Source: "prompt", Location: resources.Location(info),
			Path: t.Path, ArgumentHint: t.ArgumentHint, SourceInfo: &info,
		})
	}
	for _, sk := range set.Skills {
		info := sk.Info
		out = append(out, SlashCommand{
			Name: "skill:" + sk.Name, Description: sk.Description, Source: "skill", Location: resources.Location(info),
			Path: sk.FilePath, SourceInfo: &info,
		})
	}
	return out
}

// CommandCompletions completes a command's arguments. It returns nil (no
// completions, as opposed to an empty list) for unknown commands and for
// commands without a completer, which includes every template and skill.
func (rt *Runtime) CommandCompletions(ctx context.Context, command, argumentPrefix string) []Completion {
	if p := rt.commandProvider(); p != nil {
		if list, ok := p.Completions(ctx, command, argumentPrefix); ok {
			if list == nil {
				list = []Completion{}
			}
			return list
		}
	}
	return nil
}
