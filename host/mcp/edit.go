package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/internal/jsonedit"
)

// AddServer writes a server entry into an mcp.json, creating the file when
// missing and keeping every other byte of it (other keys and servers, in
// their order and layout; internal/jsonedit). It reports whether an entry
// of that name was replaced. The read, the edit and the write happen under
// the settings lock (config.UpdateText), so that concurrent edits (several
// `atomic mcp add` at once) all keep their entries.
func AddServer(path, name string, entry any) (replaced bool, err error) {
	raw, err := json.Marshal(entry)
	if err != nil {
		return false, err
	}
	if _, err := Validate(name, raw); err != nil {
		return false, err
	}
	err = config.UpdateText(path, func(data []byte) ([]byte, error) {
		out, r, err := jsonedit.Set(data, []string{"mcpServers", name}, raw)
		if err != nil {
			return nil, fmt.Errorf("%s: expected an object with an \"mcpServers\" object (%v); not changing it", path, err)
		}
		replaced = r
		return out, nil
	})
	return replaced, err
}

// RemoveServer deletes a server entry from an mcp.json and reports whether
// the file had it. Every other byte of the file is kept.
func RemoveServer(path, name string) (removed bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	err = config.UpdateText(path, func(data []byte) ([]byte, error) {
		out, r, err := jsonedit.Delete(data, []string{"mcpServers", name})
		if err != nil {
			return nil, fmt.Errorf("%s: %v; not changing it", path, err)
		}
		if !r {
			return nil, errUnchanged
		}
		removed = true
		return out, nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return removed, err
}

// errUnchanged ends an edit that leaves the file as it is.
var errUnchanged = errors.New("unchanged")
