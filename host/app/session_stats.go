package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
	"github.com/atomic-go/atomic/host/session/htmlexport"
	"github.com/atomic-go/atomic/sdk/rpcwire"
)

// SessionStats is the get_session_stats answer.
type SessionStats = rpcwire.SessionStats

// TokenStats are the token totals of a session.
type TokenStats = rpcwire.TokenStats

// ContextUsage is the estimated size of the next request's context.
type ContextUsage = rpcwire.ContextUsage

// SessionStats counts the context's messages and the assistant's usage.
func (rt *Runtime) SessionStats() SessionStats {
	rt.mu.Lock()
	s, model := rt.sess, rt.model
	rt.mu.Unlock()
	st := SessionStats{SessionFile: s.Path(), SessionID: s.ID()}
	var est contextUsageEstimate
	rt.eachContextMessage(func(m *llm.Message) {
		st.TotalMessages++
		switch m.Role {
		case llm.RoleUser:
			st.UserMessages++
		case llm.RoleAssistant:
			st.AssistantMessages++
			st.ToolCalls += len(m.ToolCalls())
			u := m.Usage
			st.Tokens.Input += u.Input
			st.Tokens.Output += u.Output
			st.Tokens.CacheRead += u.CacheRead
			st.Tokens.CacheWrite += u.CacheWrite
			st.Cost += u.Cost.Total
		case llm.RoleToolResult:
			st.ToolResults++
		}
		est.add(m)
	})
	st.Tokens.Total = st.Tokens.Input + st.Tokens.Output + st.Tokens.CacheRead + st.Tokens.CacheWrite
	st.ContextUsage = est.usage(model)
	return st
}

// contextUsageEstimate is the context usage that get_session_stats and an
// extension's ctx.getContextUsage() report: llm's estimate of the context,
// unknown (null) from a compaction until an assistant reply reports usage
// again.
type contextUsageEstimate struct {
	est       llm.ContextEstimate
	compacted bool
}

func (c *contextUsageEstimate) add(m *llm.Message) {
	switch {
	case m.Role == llm.RoleCustom && m.CustomType == "compaction":
		c.compacted, c.est = true, llm.ContextEstimate{}
	case llm.ReportsContext(m):
		c.compacted = false
	}
	c.est.Add(m)
}

// usage is nil when the model's context window is unknown.
func (c *contextUsageEstimate) usage(model *llm.Model) *ContextUsage {
	if model == nil || model.ContextWindow <= 0 {
		return nil
	}
	cu := &ContextUsage{ContextWindow: model.ContextWindow}
	if !c.compacted {
		t := c.est.Tokens()
		pct := float64(t) * 100 / float64(model.ContextWindow)
		cu.Tokens, cu.Percent = &t, &pct
	}
	return cu
}

// ErrExportInMemory is export_html's error with --no-session.
var ErrExportInMemory = errors.New("Cannot export in-memory session to HTML")

// ErrNothingToExport is export_html's error before any message.
var ErrNothingToExport = errors.New("Nothing to export yet - start a conversation first")

// ExportHTML writes the active branch as a self-contained HTML page and
// returns its path. Without outputPath the page goes to
// <cwd>/atomic-session-<session file name>.html.
func (rt *Runtime) ExportHTML(outputPath string) (string, error) {
	rt.mu.Lock()
	s, model := rt.sess, rt.model
	count := rt.messageCountLocked()
	rt.mu.Unlock()
	if !s.Persisted() {
		return "", ErrExportInMemory
	}
	if count == 0 && !hasMessages(s) {
		return "", ErrNothingToExport
	}
	if outputPath == "" {
		base := strings.TrimSuffix(filepath.Base(s.Path()), ".jsonl")
		outputPath = filepath.Join(rt.Cwd(), "atomic-session-"+base+".html")
	}
	outputPath = rt.resolvePath(outputPath)
	info := htmlexport.Info{Generated: time.Now()}
	if model != nil {
		info.Model = model.Provider + "/" + model.ID
	}
	if err := htmlexport.WriteFile(outputPath, s, info); err != nil {
		return "", err
	}
	return outputPath, nil
}

func hasMessages(s *session.Session) bool {
	found := false
	_ = s.WalkBranch("", func(e *session.Entry) error {
		if _, ok := session.EntryMessage(e); ok {
			found = true
			return errStop
		}
		return nil
	})
	return found
}

var errStop = errors.New("stop")

// ExportSessionFile is `atomic --export <file> [output]`: the session file's
// active branch as one HTML page, without starting an agent. Without
// output the page is atomic-session-<file name>.html in cwd (pi 1.6 writes
// pi-session-… there too); a relative output is taken from cwd. The
// session file is only read (a file of an older format is migrated, with
// its backup, as opening it anywhere does).
func ExportSessionFile(in, output, cwd string) (string, error) {
	in = resolveAgainst(in, cwd)
	if _, err := os.Stat(in); err != nil {
		return "", fmt.Errorf("File not found: %s", in)
	}
	if _, ok := session.ReadHeader(in); !ok {
		return "", fmt.Errorf("%s is not a session file (its first line is not a session header)", in)
	}
	s, err := session.Open(in, cwd)
	if err != nil {
		return "", err
	}
	if output == "" {
		output = "atomic-session-" + strings.TrimSuffix(filepath.Base(in), ".jsonl") + ".html"
	}
	output = resolveAgainst(output, cwd)
	if err := htmlexport.WriteFile(output, s, htmlexport.Info{Generated: time.Now()}); err != nil {
		return "", err
	}
	return output, nil
}
