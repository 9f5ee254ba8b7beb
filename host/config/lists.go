package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/atomic-go/atomic/internal/fsutil"
	"os"
	"path/filepath"
)

// PathList reads a list of paths (such as "skills" or "prompts") from one
// settings file, without merging it with the other layers: such paths are
// relative to the directory of the file that lists them, and where they
// come from (user or project) matters. "~" is expanded. A missing file or
// key gives an empty list; a key of the wrong type is an error.
func PathList(file, key string) ([]string, error) {
	data, err := fsutil.ReadRegular(file, fsutil.MaxSettingsFile)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil // reported by Load already
	}
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%q must be a list of paths", key)
	}
	out := make([]string, 0, len(list))
	for _, p := range list {
		if p != "" {
			out = append(out, ExpandPath(p, filepath.Dir(file)))
		}
	}
	return out, nil
}

// ExpandPath expands a leading "~" and makes p absolute against base.
func ExpandPath(p, base string) string {
	p = expandHome(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}
