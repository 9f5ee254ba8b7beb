package acp

import (
	"encoding/json"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// maxPlanEntries bounds one plan update.
const maxPlanEntries = 200

// planOf reads a plan from a tool result's details: a "plan" (or "todos",
// the shape of the common todo tools) array of entries with "content"
// (or "text", "title"), "status" and "priority". It returns nil when the
// details hold none. A tool provides the session's plan this way, for
// example an extension's todo tool; each such result replaces the plan.
func planOf(details any) []sdk.PlanEntry {
	var list any
	switch d := details.(type) {
	case map[string]any:
		list = d["plan"]
		if list == nil {
			list = d["todos"]
		}
	case json.RawMessage:
		var m map[string]any
		if json.Unmarshal(d, &m) != nil {
			return nil
		}
		return planOf(m)
	default:
		return nil
	}
	items, ok := list.([]any)
	if !ok {
		return nil
	}
	entries := []sdk.PlanEntry{}
	for _, it := range items {
		if len(entries) == maxPlanEntries {
			break
		}
		m, ok := it.(map[string]any)
		if !ok {
			if text, ok := it.(string); ok && text != "" {
				entries = append(entries, sdk.PlanEntry{Content: text, Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending})
			}
			continue
		}
		content := firstString(m, "content", "text", "title", "description")
		if content == "" {
			continue
		}
		entries = append(entries, sdk.PlanEntry{Content: content, Priority: planPriority(firstString(m, "priority")), Status: planStatus(m)})
	}
	return entries
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if v, ok := m[k].(string); ok && v != "" {
			return v
		}
	}
	return ""
}

func planStatus(m map[string]any) sdk.PlanEntryStatus {
	if done, ok := m["done"].(bool); ok && done {
		return sdk.PlanEntryStatusCompleted
	}
	switch strings.ToLower(strings.ReplaceAll(firstString(m, "status", "state"), "-", "_")) {
	case "in_progress", "active", "running", "doing":
		return sdk.PlanEntryStatusInProgress
	case "completed", "complete", "done", "cancelled", "canceled", "skipped":
		return sdk.PlanEntryStatusCompleted
	}
	return sdk.PlanEntryStatusPending
}

func planPriority(p string) sdk.PlanEntryPriority {
	switch strings.ToLower(p) {
	case "high":
		return sdk.PlanEntryPriorityHigh
	case "low":
		return sdk.PlanEntryPriorityLow
	}
	return sdk.PlanEntryPriorityMedium
}
