package app

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/atomic-go/atomic/host/session"
)

// The session arguments of the command line, as pi 1.6 reads them:
// --session <path|id>, --session-id <id>, --fork <path|id>.

var sessionIDPattern = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// CheckSessionID refuses a --session-id that pi would refuse: letters,
// digits, '.', '_' and '-', starting and ending with a letter or digit.
func CheckSessionID(id string) error {
	if !sessionIDPattern.MatchString(id) || len(id) > 200 {
		return fmt.Errorf("invalid session id %q: use letters, digits, '.', '_' and '-', starting and ending with a letter or digit", id)
	}
	return nil
}

// sessionMatch is where a session argument leads.
type sessionMatch struct {
	path  string
	local bool   // a session of this directory (or a path)
	cwd   string // the other directory of a session that is not local
}

// errNoSession is a session argument that matches nothing.
type errNoSession struct{ arg string }

func (e errNoSession) Error() string { return fmt.Sprintf("No session found matching '%s'", e.arg) }

// looksLikePath reports whether a session argument is a file path rather
// than an id (pi's rule: a separator, or the .jsonl extension).
func looksLikePath(arg string) bool {
	return strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl")
}

// resolveSessionArg finds the session a --session or --fork argument
// names: a path as it is; an id or its prefix among this directory's
// sessions (newest first), then among every directory's.
func (rt *Runtime) resolveSessionArg(arg, cwd string) (sessionMatch, error) {
	if looksLikePath(arg) {
		return sessionMatch{path: rt.resolvePath(arg), local: true}, nil
	}
	find := func(list []session.Info) (session.Info, bool) {
		for _, exact := range []bool{true, false} {
			for _, in := range list {
				if (exact && in.ID == arg) || (!exact && strings.HasPrefix(in.ID, arg)) {
					return in, true
				}
			}
		}
		return session.Info{}, false
	}
	if in, ok := find(session.ListDirs([]string{rt.sessionDir(cwd)}, cwd)); ok {
		return sessionMatch{path: in.Path, local: true}, nil
	}
	if in, ok := find(session.ListDirs(session.AllSessionDirs(rt.agentDir(), rt.settings.SessionDir), "")); ok {
		return sessionMatch{path: in.Path, local: in.Cwd == cwd, cwd: in.Cwd}, nil
	}
	return sessionMatch{}, errNoSession{arg}
}

// initialFromArgs opens the session the command line names (nil when it
// names none): --fork, --session, --session-id. loaded says whether the
// session has entries to restore.
func (rt *Runtime) initialFromArgs(cwd string) (s *session.Session, loaded bool, err error) {
	switch {
	case rt.opts.Fork != "":
		m, err := rt.resolveSessionArg(rt.opts.Fork, cwd)
		if err != nil {
			return nil, false, err
		}
		src, err := session.Open(m.path, cwd)
		if err != nil {
			return nil, false, err
		}
		if rt.opts.SessionID != "" {
			return nil, false, errors.New("--fork with --session-id is not supported yet")
		}
		s, err = src.BranchTo(rt.sessionDir(cwd), cwd, src.Leaf())
		if err != nil {
			return nil, false, err
		}
		return s, s.Len() > 0, nil
	case rt.opts.SessionPath != "":
		m, err := rt.resolveSessionArg(rt.opts.SessionPath, cwd)
		if err != nil {
			return nil, false, err
		}
		if !m.local {
			return nil, false, fmt.Errorf("the session %s belongs to another directory (%s); --fork %s forks it into this one", rt.opts.SessionPath, m.cwd, rt.opts.SessionPath)
		}
		s, err = session.Open(m.path, cwd)
		if errors.Is(err, session.ErrNotFound) {
			return session.New(m.path, cwd, ""), false, nil
		}
		return s, err == nil, err
	case rt.opts.SessionID != "":
		for _, in := range session.ListDirs([]string{rt.sessionDir(cwd)}, cwd) {
			if in.ID == rt.opts.SessionID {
				s, err = session.Open(in.Path, cwd)
				return s, err == nil, err
			}
		}
		rt.log.Warn(fmt.Sprintf("No project session found with id '%s'; creating a new session with that id.", rt.opts.SessionID))
		return session.NewInWithID(rt.sessionDir(cwd), cwd, "", rt.opts.SessionID), false, nil
	}
	return nil, false, nil
}
