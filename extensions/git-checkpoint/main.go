// Command git-checkpoint is a first-party atomic extension: before every
// prompt it snapshots the project's working tree (tracked and untracked
// files, .gitignore honoured) as a git commit kept under
// refs/atomic/checkpoints/, without touching the index, the branch or the
// files, and records the snapshot in the session as a "git-checkpoint"
// custom entry. When the user forks the session from a message, it offers
// to restore the files as they were before that message.
//
// /checkpoints lists the snapshots of the session. Outside a git work tree
// the extension does nothing.
package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/atomic-go/atomic/sdk"
)

// EntryType is the customType of the session entries it writes.
const EntryType = "git-checkpoint"

// Checkpoint is the data of a git-checkpoint entry.
type Checkpoint struct {
	Commit string `json:"commit"`
	Ref    string `json:"ref"`
	Prompt string `json:"prompt"`
	Time   string `json:"time"`
}

func main() {
	sdk.Serve(newExtension())
}

// Restore choices offered on fork.
const (
	choiceRestore = "Restore files to the checkpoint"
	choiceKeep    = "Keep the current files"
)

func newExtension() *sdk.Extension {
	ext := sdk.New("git-checkpoint", "1.0.0")
	ext.OnBeforeAgentStart(func(ctx *sdk.Context, ev *sdk.BeforeAgentStartEvent) (*sdk.BeforeAgentStartResult, error) {
		g := repo{dir: ctx.Cwd}
		if !g.ok(ctx) {
			return nil, nil
		}
		commit, err := g.snapshot(ctx)
		if err != nil {
			return nil, err
		}
		ref := fmt.Sprintf("refs/atomic/checkpoints/%s/%d", sanitize(ctx.SessionID), time.Now().UnixNano())
		if err := g.updateRef(ctx, ref, commit); err != nil {
			return nil, err
		}
		prompt := ev.Prompt
		if len(prompt) > 200 {
			prompt = prompt[:200] + "…"
		}
		_, err = ctx.Host.AppendEntry(ctx, EntryType, Checkpoint{Commit: commit, Ref: ref, Prompt: prompt, Time: time.Now().UTC().Format(time.RFC3339)})
		return nil, err
	})
	ext.OnSessionBeforeFork(func(ctx *sdk.Context, ev *sdk.SessionBeforeForkEvent) (*sdk.CancelResult, error) {
		g := repo{dir: ctx.Cwd}
		if !ctx.HasUI || !g.ok(ctx) {
			return nil, nil
		}
		view, err := ctx.Host.Session(ctx, sdk.SessionQuery{Entries: true})
		if err != nil {
			return nil, err
		}
		cp := checkpointBefore(view.Entries, ev.EntryID, ev.Position)
		if cp == nil {
			return nil, nil
		}
		choice, ok, err := ctx.UI.Select(fmt.Sprintf("Files changed since %q. Restore them?", cp.Prompt), []string{choiceRestore, choiceKeep})
		if err != nil || !ok || choice != choiceRestore {
			return nil, err
		}
		// Keep the current state too, so that the restore can be undone.
		if now, err := g.snapshot(ctx); err == nil {
			_ = g.updateRef(ctx, cp.Ref+"-before-restore", now)
		}
		if err := g.restore(ctx, cp.Commit); err != nil {
			return nil, err
		}
		return nil, ctx.UI.Notify("Files restored to the checkpoint of "+cp.Ref, "info")
	})
	ext.RegisterCommand(sdk.Command{
		Name: "checkpoints", Description: "List the git checkpoints of this session",
		Run: func(ctx *sdk.Context, _ string) error {
			view, err := ctx.Host.Session(ctx, sdk.SessionQuery{Entries: true})
			if err != nil {
				return err
			}
			var lines []string
			for _, e := range view.Entries {
				if cp := decode(e); cp != nil {
					lines = append(lines, fmt.Sprintf("%s  %s  %s", cp.Commit[:min(12, len(cp.Commit))], cp.Time, cp.Prompt))
				}
			}
			if len(lines) == 0 {
				return ctx.UI.Notify("No checkpoints in this session.", "info")
			}
			return ctx.UI.Notify(strings.Join(lines, "\n"), "info")
		},
	})
	return ext
}

func decode(e map[string]any) *Checkpoint {
	if e["type"] != "custom" || e["customType"] != EntryType {
		return nil
	}
	b, err := json.Marshal(e["data"])
	if err != nil {
		return nil
	}
	var cp Checkpoint
	if json.Unmarshal(b, &cp) != nil || cp.Commit == "" {
		return nil
	}
	return &cp
}

// checkpointBefore finds the latest checkpoint recorded before the entry
// (position "before": the state before that message; "at": the state
// after it, i.e. the checkpoint of the next prompt is not wanted, so the
// latest one before the entry's successor).
func checkpointBefore(entries []map[string]any, entryID, position string) *Checkpoint {
	var last *Checkpoint
	for i, e := range entries {
		if e["id"] == entryID {
			if position == "at" {
				for _, later := range entries[i+1:] {
					if cp := decode(later); cp != nil {
						return cp
					}
				}
			}
			return last
		}
		if cp := decode(e); cp != nil {
			last = cp
		}
	}
	return nil
}

func sanitize(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			sb.WriteRune(r)
		}
	}
	if sb.Len() == 0 {
		return "session"
	}
	return sb.String()
}
