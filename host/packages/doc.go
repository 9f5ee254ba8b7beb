// Package packages is the package system: extensions, skills, prompt
// templates and themes shipped as one unit, from npm, a git repository or
// a local directory, compatible with the reference's packages and their
// settings.
//
//   - Sources (source.go): npm:<name>[@version|@range|@tag], git:<host>/<path>[@ref],
//     https://, ssh://, git:// and git@host:path URLs, local paths; each
//     with an identity (npm name, git host/path without ref, resolved
//     path) that de-duplicates packages across settings files.
//   - Settings entries (entries.go): the "packages" list of
//     <agentDir>/settings.json (user) and .atomic/settings.json (project),
//     strings or {"source", "extensions", "skills", "prompts", "themes"}
//     filters; edits splice the list in the file's text (settings.go) under
//     the settings lock, leaving every other byte alone.
//   - Manifests and filters (collect.go): package.json "atomic" (else "pi")
//     resource lists with globs and "!", "+", "-" patterns, or the
//     conventional extensions/, skills/, prompts/, themes/ directories.
//   - Installs (install.go): the real npm and git clients, into directories
//     we own (never global npm), serialised per directory by a lock file;
//     their output never reaches our stdout.
//   - Resolution (resolve.go): -e packages, then project packages (only in
//     a trusted project), then user packages; the resource paths that feed
//     host/extensions' discovery and host/resources' loading, each with the
//     package it came from. A package that cannot be installed is a problem
//     and is skipped; the next resolution (start, reload) tries again.
package packages
