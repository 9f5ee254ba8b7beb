package session

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// DirName is the directory name of a working directory's sessions:
// "--" + the path without its leading separator, with '/', '\' and ':'
// replaced by '-', + "--" (/home/u/proj → --home-u-proj--).
func DirName(cwd string) string {
	p := strings.TrimLeft(cwd, `/\`)
	p = strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(p)
	return "--" + p + "--"
}

// Dir returns where a working directory's sessions live: sessionDir itself
// when it is set (a flat directory), else <agentDir>/sessions/<DirName>.
func Dir(agentDir, sessionDir, cwd string) string {
	if sessionDir != "" {
		return sessionDir
	}
	return filepath.Join(agentDir, "sessions", DirName(cwd))
}

// ReadHeader reads the header of a session file (its first non-blank
// line). ok is false when the file is not a session file.
func ReadHeader(path string) (Header, bool) {
	f, _, err := fsutil.OpenRegular(path)
	if err != nil {
		return Header{}, false
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return Header{}, false // a header is never this long
		}
		if !isBlank(line) {
			var h Header
			if !validJSON(line) || json.Unmarshal(line, &h) != nil || h.Type != "session" || h.ID == "" {
				return Header{}, false
			}
			return h, true
		}
		if err != nil {
			return Header{}, false
		}
	}
}

// Latest returns the most recently modified session file in dir whose
// header belongs to cwd and has a version this package reads, or "" when
// there is none.
func Latest(dir, cwd string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	type cand struct {
		path string
		mod  int64
	}
	var cands []cand
	for _, de := range ents {
		if de.IsDir() || !strings.HasSuffix(de.Name(), ".jsonl") {
			continue
		}
		fi, err := de.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		cands = append(cands, cand{filepath.Join(dir, de.Name()), fi.ModTime().UnixNano()})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].mod != cands[j].mod {
			return cands[i].mod > cands[j].mod
		}
		return cands[i].path > cands[j].path
	})
	for _, c := range cands {
		h, ok := ReadHeader(c.path)
		if !ok || h.Version < 1 || h.Version > Version {
			continue
		}
		if cwd != "" && h.Cwd != cwd {
			continue
		}
		return c.path
	}
	return ""
}
