package tools

// IgnoreMatcher applies the .gitignore and .ignore files of a directory
// walk: Enter reads the ignore files of a directory as the walk descends
// into it, and Ignored answers for entries below the directories entered so
// far (inner files take precedence, later rules win, "!" re-includes). The
// zero value ignores nothing. It is used outside this package by the
// resource discovery (skills directories), so that one matcher serves both.
type IgnoreMatcher struct {
	stack ignoreStack
}

// Enter returns the matcher for the directory dir (an absolute path): the
// receiver plus the ignore files dir holds, if any. The receiver is not
// changed, so one matcher can be shared by sibling directories.
func (m IgnoreMatcher) Enter(dir string) IgnoreMatcher {
	return IgnoreMatcher{stack: m.stack.with(loadIgnoreDir(dir))}
}

// Ignored reports whether the absolute path abs (a directory when isDir)
// is ignored.
func (m IgnoreMatcher) Ignored(abs string, isDir bool) bool {
	return m.stack.ignored(abs, isDir)
}
