package config

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
)

// The keys of a settings file: the ones atomic reads, pi 1.6's that it
// does not support (each named in one warning, with what that means), and
// the rest (an unknown key is named in one warning too, so that a typo or
// another tool's setting never passes silently).

// otherKeys are the settings keys read outside the Settings struct.
var otherKeys = []string{
	"packages",   // host/packages
	"extensions", // host/extensions reads each entry's file itself
	"retry.maxAgentDelayMs",
	"httpProxy", // the agent directory's file only (Load)
}

// PiUnsupported are pi 1.6's settings that atomic reads but does not act
// on, each with what the user gets instead.
var PiUnsupported = map[string]string{
	"modelThinkingLevels":         "per-model thinking levels are not supported; defaultThinkingLevel applies",
	"showCacheMissNotices":        "cache notices are not shown",
	"cacheWarming":                "prompt caches are not kept warm",
	"externalEditor":              "a setting of pi's terminal UI",
	"doubleEscapeAction":          "a setting of pi's terminal UI",
	"treeFilterMode":              "a setting of pi's terminal UI",
	"codemode":                    "code mode is not supported",
	"sessionShareDestination":     "/share is not supported",
	"compaction.keepRecentTokens": "atomic's compaction keeps compaction.preserve_recent recent messages",
	"compaction.modelOverrides":   "per-model compaction settings are not supported",
	"branchSummary":               "branch summaries use the compaction settings",
	"quietStartup":                "a setting of pi's terminal UI",
	"tuiMode":                     "a setting of pi's terminal UI",
	"fullscreenExitOutput":        "a setting of pi's terminal UI",
	"fullscreenScrollbar":         "a setting of pi's terminal UI",
	"fullscreenCopyOnSelect":      "a setting of pi's terminal UI",
	"fullscreenWheelScrollLines":  "a setting of pi's terminal UI",
	"editorPaddingX":              "a setting of pi's terminal UI",
	"outputPad":                   "a setting of pi's terminal UI",
	"autocompleteMaxVisible":      "a setting of pi's terminal UI",
	"showHardwareCursor":          "a setting of pi's terminal UI",
	"terminal":                    "a setting of pi's terminal UI",
	"images.autoResize":           "images are sent at their own size (no resizing)",
	"markdown":                    "a setting of pi's terminal UI",
	"transport":                   "providers are reached over HTTP streaming only",
	"websocketConnectTimeoutMs":   "providers are reached over HTTP streaming only",
	"retry.provider":              "provider-level retries are not supported; retry.* applies",
	"selfUpdateCommand":           "atomic does not update itself",
	"collapseChangelog":           "atomic shows no changelog",
	"enableInstallTelemetry":      "atomic sends no telemetry",
	"enableAnalytics":             "atomic sends no analytics",
	"warnings":                    "pi's provider warnings do not apply",
}

// knownKeys are the dotted keys atomic reads (a struct field's key also
// covers everything under it that is not a struct).
func knownKeys() map[string]bool {
	out := map[string]bool{}
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("mapstructure")
			if tag == "" || tag == "-" {
				continue
			}
			key := prefix + tag
			out[key] = true
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, key+".")
			}
		}
	}
	walk(reflect.TypeOf(Settings{}), "")
	for _, k := range otherKeys {
		out[k] = true
	}
	return out
}

// keyDiagnostics names, once each, the keys of a settings file (data, a
// JSON object) that atomic does not act on: pi 1.6's unsupported ones and
// unknown ones. seen holds the keys already named.
func keyDiagnostics(path string, data []byte, seen map[string]bool) []Diagnostic {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return nil
	}
	known := knownKeys()
	var out []Diagnostic
	var visit func(obj map[string]json.RawMessage, prefix string)
	visit = func(obj map[string]json.RawMessage, prefix string) {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			key := prefix + k
			if why, ok := PiUnsupported[key]; ok {
				if !seen[key] {
					seen[key] = true
					out = append(out, Diagnostic{Path: path, Ignored: true, Message: "setting " + key + " is pi's and not supported by atomic: " + why})
				}
				continue
			}
			if !known[key] {
				if !seen[key] && !strings.HasPrefix(k, "$") { // "$schema"
					seen[key] = true
					out = append(out, Diagnostic{Path: path, Ignored: true, Message: "unknown setting " + key + " (ignored)"})
				}
				continue
			}
			if !hasKnownChildren(known, key) {
				continue
			}
			var sub map[string]json.RawMessage
			if json.Unmarshal(obj[k], &sub) == nil {
				visit(sub, key+".")
			}
		}
	}
	visit(top, "")
	return out
}

// hasKnownChildren reports whether a known key has known keys under it
// (a struct of settings, whose members are checked one by one).
func hasKnownChildren(known map[string]bool, key string) bool {
	for k := range known {
		if strings.HasPrefix(k, key+".") {
			return true
		}
	}
	return false
}
