package main

import (
	"runtime/debug"
	"strings"
)

// version is set at build time with -ldflags "-X main.version=…"; when it
// is not, buildVersion derives one from the build information.
var version = ""

// buildVersion is the version atomic reports (--version, the extensions'
// host version): the -X value, else the module version (a tagged
// `go install …@v1.2.3`), else the VCS revision the binary was built from
// ("(devel) rev 0123abcd4567, modified" for a dirty tree), else "(devel)".
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	return versionFromBuildInfo(info)
}

func versionFromBuildInfo(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v != "" && v != "(devel)" {
		return v
	}
	var rev, modified, when string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		case "vcs.time":
			when = s.Value
		}
	}
	if rev == "" {
		return "(devel)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	var sb strings.Builder
	sb.WriteString("(devel) rev " + rev)
	if when != "" {
		sb.WriteString(" " + when)
	}
	if modified == "true" {
		sb.WriteString(", modified")
	}
	return sb.String()
}
