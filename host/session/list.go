package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// Info describes one session file for a session picker (list_sessions):
// read line by line, without building the session's index or keeping its
// messages.
type Info struct {
	Path string `json:"path"`
	ID   string `json:"id"`
	Cwd  string `json:"cwd"`
	// Name is the latest session_info name (absent when none or cleared).
	Name          string `json:"name,omitempty"`
	ParentSession string `json:"parentSession,omitempty"`
	// Created is the header's timestamp; Modified the time of the latest
	// user or assistant message (the header's time, else the file's
	// modification time, without one). Both ISO 8601 in UTC, as pi writes
	// dates.
	Created      string `json:"created"`
	Modified     string `json:"modified"`
	MessageCount int    `json:"messageCount"`
	// FirstMessage is the text of the first user message with text, or
	// "(no messages)".
	FirstMessage string `json:"firstMessage"`

	modified time.Time
}

// listLineCap is the longest line List decodes; of a longer line only the
// beginning is read (the fields List needs come first in the lines pi and
// atomic write), so that memory stays bounded whatever the files hold.
const listLineCap = 1 << 20

// listPrefix is how much of an over-long line is kept.
const listPrefix = 64 << 10

// ListDirs lists the session files (*.jsonl) of the given directories,
// newest first (by Modified). Files that are not session files are left
// out; when cwd is not empty, so are sessions of other directories.
func ListDirs(dirs []string, cwd string) []Info {
	var out []Info
	seen := map[string]bool{}
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, de := range ents {
			if de.IsDir() || !strings.HasSuffix(de.Name(), ".jsonl") {
				continue
			}
			p := filepath.Join(dir, de.Name())
			if seen[p] {
				continue
			}
			seen[p] = true
			info, ok := ReadInfo(p)
			if !ok || (cwd != "" && info.Cwd != cwd) {
				continue
			}
			out = append(out, info)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].modified.Equal(out[j].modified) {
			return out[i].modified.After(out[j].modified)
		}
		return out[i].Path > out[j].Path
	})
	return out
}

// AllSessionDirs returns the per-directory session folders under
// <agentDir>/sessions, plus sessionDir when it is set.
func AllSessionDirs(agentDir, sessionDir string) []string {
	var dirs []string
	if sessionDir != "" {
		dirs = append(dirs, sessionDir)
	}
	root := filepath.Join(agentDir, "sessions")
	ents, err := os.ReadDir(root)
	if err != nil {
		return dirs
	}
	for _, de := range ents {
		if de.IsDir() {
			dirs = append(dirs, filepath.Join(root, de.Name()))
		}
	}
	return dirs
}

// infoLine is what ReadInfo decodes of an entry line.
type infoLine struct {
	Type          string  `json:"type"`
	ID            string  `json:"id"`
	Cwd           string  `json:"cwd"`
	Timestamp     string  `json:"timestamp"`
	ParentSession string  `json:"parentSession"`
	Name          *string `json:"name"`
	Message       *struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		Timestamp json.RawMessage `json:"timestamp"`
	} `json:"message"`
}

// ReadInfo reads the Info of one session file; ok is false when it is not
// a session file.
func ReadInfo(path string) (Info, bool) {
	// A FIFO, socket, device or directory named *.jsonl is no session
	// file: refused without blocking (fsutil.OpenRegular), and a regular
	// file is read a bounded line at a time.
	f, st, err := fsutil.OpenRegular(path)
	if err != nil {
		return Info{}, false
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var info Info
	header := false
	var last time.Time
	for {
		line, complete, err := readCappedLine(r)
		if len(bytes.TrimSpace(line)) > 0 {
			var e infoLine
			if complete {
				if json.Unmarshal(line, &e) != nil {
					e = infoLine{}
				}
			} else {
				e = headOfLine(line)
			}
			if !header {
				if e.Type != "session" || e.ID == "" {
					return Info{}, false
				}
				header = true
				info.Path, info.ID, info.Cwd, info.ParentSession = path, e.ID, e.Cwd, e.ParentSession
				info.Created = isoTime(isoParse(e.Timestamp))
			} else {
				switch e.Type {
				case TypeSessionInfo:
					info.Name = ""
					if e.Name != nil {
						info.Name = strings.TrimSpace(*e.Name)
					}
				case TypeMessage:
					info.MessageCount++
					if m := e.Message; m != nil && (m.Role == "user" || m.Role == "assistant") {
						t := messageTime(m.Timestamp, e.Timestamp)
						if t.After(last) {
							last = t
						}
						if info.FirstMessage == "" && m.Role == "user" {
							info.FirstMessage = contentText(m.Content)
						}
					}
				}
			}
		}
		if err != nil {
			break
		}
	}
	if !header {
		return Info{}, false
	}
	if info.FirstMessage == "" {
		info.FirstMessage = "(no messages)"
	}
	switch {
	case !last.IsZero():
		info.modified = last
	case info.Created != "":
		info.modified = isoParse(info.Created)
	default:
		info.modified = st.ModTime()
	}
	info.Modified = isoTime(info.modified)
	return info, true
}

// readCappedLine reads one line (without its newline). A line longer than
// listLineCap is returned cut to listPrefix bytes with complete false; the
// rest of it is skipped.
func readCappedLine(r *bufio.Reader) (line []byte, complete bool, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > listLineCap {
			if len(buf) < listPrefix {
				buf = append(buf, chunk[:min(len(chunk), listPrefix-len(buf))]...)
			}
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			return buf, false, err
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r")), true, err
	}
}

// headOfLine decodes the leading fields of a cut line token by token:
// type, id, timestamp and the message's role, as far as they come before
// the cut.
func headOfLine(prefix []byte) infoLine {
	var e infoLine
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return e
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return e
		}
		key, _ := k.(string)
		if key == "message" {
			if t, err := dec.Token(); err != nil || t != json.Delim('{') {
				return e
			}
			e.Message = &struct {
				Role      string          `json:"role"`
				Content   json.RawMessage `json:"content"`
				Timestamp json.RawMessage `json:"timestamp"`
			}{}
			for dec.More() {
				mk, err := dec.Token()
				if err != nil {
					return e
				}
				if mk == "role" {
					if v, err := dec.Token(); err == nil {
						e.Message.Role, _ = v.(string)
					}
					continue
				}
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return e
				}
			}
			continue
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return e
		}
		var s string
		_ = json.Unmarshal(v, &s)
		switch key {
		case "type":
			e.Type = s
		case "id":
			e.ID = s
		case "timestamp":
			e.Timestamp = s
		case "cwd":
			e.Cwd = s
		}
	}
	return e
}

// contentText joins the text blocks of a message's content (a string
// content is its own text), with single spaces as pi does.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}

// messageTime is the message's numeric timestamp (milliseconds), else the
// entry's.
func messageTime(msgTS json.RawMessage, entryTS string) time.Time {
	var ms float64
	if len(msgTS) > 0 && json.Unmarshal(msgTS, &ms) == nil && ms > 0 {
		return time.UnixMilli(int64(ms))
	}
	return isoParse(entryTS)
}

// isoParse is parseTime as a time.Time (the zero time when s is not a
// timestamp).
func isoParse(s string) time.Time {
	if ms := parseTime(s); ms != 0 {
		return time.UnixMilli(ms)
	}
	return time.Time{}
}

// isoTime formats t as JavaScript's Date.toISOString does ("" for the
// zero time).
func isoTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
