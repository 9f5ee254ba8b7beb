package tui

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/atomic-go/atomic/host/session"
)

// historyMax is how many prompts the editor's history keeps (as pi).
const historyMax = 100

// history is the editor's prompt history of one project: the prompts
// sent, newest first, persisted in <agentDir>/history/<project>.jsonl
// (one JSON string a line, oldest first; the project named as its
// sessions directory is).
type history struct {
	file    string // "" when nothing is persisted
	entries []string
	// index is the entry shown while browsing (-1: not browsing); draft
	// is the editor's text from before browsing.
	index int
	draft string
	lines int // lines in the file (compacted when it grows past 2×historyMax)
}

func historyFile(agentDir, cwd string) string {
	if agentDir == "" || cwd == "" {
		return ""
	}
	return filepath.Join(agentDir, "history", session.DirName(cwd)+".jsonl")
}

// loadHistory reads the project's history; an unreadable file or line is
// skipped (the history is a convenience, never a reason not to start).
func loadHistory(file string) *history {
	h := &history{file: file, index: -1}
	if file == "" {
		return h
	}
	f, err := os.Open(file)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var all []string
	for sc.Scan() {
		h.lines++
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && strings.TrimSpace(s) != "" {
			all = append(all, s)
		}
	}
	for i := len(all) - 1; i >= 0 && len(h.entries) < historyMax; i-- {
		if len(h.entries) == 0 || h.entries[len(h.entries)-1] != all[i] {
			h.entries = append(h.entries, all[i])
		}
	}
	return h
}

// add records a sent prompt (not a repeat of the last one) and ends
// browsing. It returns an error only for the log.
func (h *history) add(text string) error {
	h.index, h.draft = -1, ""
	text = strings.TrimSpace(text)
	if text == "" || (len(h.entries) > 0 && h.entries[0] == text) {
		return nil
	}
	h.entries = append([]string{text}, h.entries...)
	if len(h.entries) > historyMax {
		h.entries = h.entries[:historyMax]
	}
	if h.file == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(h.file), 0o700); err != nil {
		return err
	}
	if h.lines >= 2*historyMax {
		return h.rewrite()
	}
	line, _ := json.Marshal(text)
	f, err := os.OpenFile(h.file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	h.lines++
	return err
}

// rewrite replaces the file with the kept entries (through a temporary
// file renamed over it, so a crash leaves the old or the new history).
func (h *history) rewrite() error {
	var b strings.Builder
	for i := len(h.entries) - 1; i >= 0; i-- {
		line, _ := json.Marshal(h.entries[i])
		b.Write(line)
		b.WriteByte('\n')
	}
	tmp := h.file + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, h.file); err != nil {
		return err
	}
	h.lines = len(h.entries)
	return nil
}

// browse moves through the history: older (dir -1) or newer (+1). It
// returns the text to show and whether anything changed; past the newest
// entry the draft comes back.
func (h *history) browse(dir int, current string) (string, bool) {
	next := h.index - dir
	if len(h.entries) == 0 || next < -1 || next >= len(h.entries) {
		return "", false
	}
	if h.index == -1 {
		h.draft = current
	}
	h.index = next
	if next == -1 {
		d := h.draft
		h.draft = ""
		return d, true
	}
	return h.entries[next], true
}

// browsing reports whether an entry is shown.
func (h *history) browsing() bool { return h.index >= 0 }

// stop ends browsing (the shown entry is being edited).
func (h *history) stop() { h.index, h.draft = -1, "" }
