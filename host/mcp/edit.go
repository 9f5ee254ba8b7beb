package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/atomic-go/atomic/host/config"
)

// AddServer writes a server entry into an mcp.json, creating the file when
// missing and keeping everything else in it (other keys and servers, in
// their order). It reports whether an entry of that name was replaced.
func AddServer(path, name string, entry any) (replaced bool, err error) {
	raw, err := json.Marshal(entry)
	if err != nil {
		return false, err
	}
	if _, err := Validate(name, raw); err != nil {
		return false, err
	}
	err = editServers(path, func(keys []string, values []json.RawMessage) ([]string, []json.RawMessage, bool) {
		for i, k := range keys {
			if k == name {
				values[i] = raw
				replaced = true
				return keys, values, true
			}
		}
		return append(keys, name), append(values, raw), true
	})
	return replaced, err
}

// RemoveServer deletes a server entry from an mcp.json and reports whether
// the file had it. Everything else in the file is kept.
func RemoveServer(path, name string) (removed bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	err = editServers(path, func(keys []string, values []json.RawMessage) ([]string, []json.RawMessage, bool) {
		for i, k := range keys {
			if k == name {
				removed = true
				return append(keys[:i:i], keys[i+1:]...), append(values[:i:i], values[i+1:]...), true
			}
		}
		return keys, values, false
	})
	return removed, err
}

// errUnchanged ends an edit that leaves the file as it is.
var errUnchanged = errors.New("unchanged")

// editServers rewrites the "mcpServers" object of path when edit says so;
// the other top-level keys keep their values and order, the file its
// indentation. The read, the edit and the write happen under the settings
// lock (config.UpdateText), so that concurrent edits (several
// `atomic mcp add` at once) all keep their entries.
func editServers(path string, edit func([]string, []json.RawMessage) ([]string, []json.RawMessage, bool)) error {
	err := config.UpdateText(path, func(data []byte) ([]byte, error) {
		return editServersText(path, data, edit)
	})
	if errors.Is(err, errUnchanged) {
		return nil
	}
	return err
}

func editServersText(path string, data []byte, edit func([]string, []json.RawMessage) ([]string, []json.RawMessage, bool)) ([]byte, error) {
	var topKeys []string
	var topValues []json.RawMessage
	var err error
	if len(bytes.TrimSpace(data)) > 0 {
		if topKeys, topValues, err = orderedObject(data); err != nil {
			return nil, fmt.Errorf("%s: expected an object with an \"mcpServers\" object: %v", path, err)
		}
	}
	at := -1
	for i, k := range topKeys {
		if k == "mcpServers" {
			at = i
		}
	}
	var keys []string
	var values []json.RawMessage
	if at >= 0 && string(topValues[at]) != "null" {
		if keys, values, err = orderedObject(topValues[at]); err != nil {
			return nil, fmt.Errorf("%s: \"mcpServers\" must be an object", path)
		}
	}
	keys, values, changed := edit(keys, values)
	if !changed {
		return nil, errUnchanged
	}
	servers := encodeObject(keys, values)
	if at >= 0 {
		topValues[at] = servers
	} else {
		topKeys, topValues = append(topKeys, "mcpServers"), append(topValues, servers)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, encodeObject(topKeys, topValues), "", indentOf(data)); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func encodeObject(keys []string, values []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(values[i])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// indentOf returns the indentation of the first indented line (two spaces
// by default).
func indentOf(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n")) {
		n := 0
		for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
			n++
		}
		if n > 0 && n < len(line) {
			return string(line[:n])
		}
	}
	return "  "
}
