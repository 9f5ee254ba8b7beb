package jsext

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// This file is package.json "exports" and "imports" as Node resolves them
// (the ESM resolution algorithm of Node's documentation: PACKAGE_RESOLVE,
// PACKAGE_SELF_RESOLVE, PACKAGE_EXPORTS_RESOLVE, PACKAGE_IMPORTS_RESOLVE,
// PACKAGE_TARGET_RESOLVE), for the goja runtime. One difference, as pi's
// loader has it: the file a target names may leave out its extension, or
// name a TypeScript file by its .js name (resolvePath probes it), where
// Node wants the exact file.

// Condition sets: an import (an ES module's import statement or
// import()) and a require (a CommonJS file's, or createRequire's).
var (
	importConditions  = []string{"node", "import"}
	requireConditions = []string{"node", "require"}
)

// ResolveError is a failed package resolution, with Node's error code
// (ERR_PACKAGE_PATH_NOT_EXPORTED…) and Node's wording.
type ResolveError struct {
	Code    string
	Message string
}

func (e *ResolveError) Error() string { return e.Message + " (" + e.Code + ")" }

// maxPackageJSON caps a package.json the resolver reads.
const maxPackageJSON = 4 << 20

// pkgValue is a JSON value with the key order of its objects kept (the
// order of conditions decides which one wins).
type pkgValue struct {
	kind  byte // 's' string, 'a' array, 'o' object, 'n' null, 'x' other
	str   string
	items []pkgValue
	keys  []string
	vals  []pkgValue
}

func (v *pkgValue) get(key string) (pkgValue, bool) {
	for i, k := range v.keys {
		if k == key {
			return v.vals[i], true
		}
	}
	return pkgValue{}, false
}

// maxPkgDepth bounds the nesting of an exports or imports value.
const maxPkgDepth = 64

func decodePkgValue(d *json.Decoder, depth int) (pkgValue, error) {
	if depth > maxPkgDepth {
		return pkgValue{}, errors.New("nested too deeply")
	}
	t, err := d.Token()
	if err != nil {
		return pkgValue{}, err
	}
	switch t := t.(type) {
	case string:
		return pkgValue{kind: 's', str: t}, nil
	case nil:
		return pkgValue{kind: 'n'}, nil
	case json.Delim:
		switch t {
		case '[':
			v := pkgValue{kind: 'a'}
			for d.More() {
				item, err := decodePkgValue(d, depth+1)
				if err != nil {
					return v, err
				}
				v.items = append(v.items, item)
			}
			_, err := d.Token()
			return v, err
		case '{':
			v := pkgValue{kind: 'o'}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return v, err
				}
				k, _ := kt.(string)
				val, err := decodePkgValue(d, depth+1)
				if err != nil {
					return v, err
				}
				if i := indexOf(v.keys, k); i >= 0 {
					v.vals[i] = val // JSON.parse: the last one wins, in the first one's place
					continue
				}
				v.keys = append(v.keys, k)
				v.vals = append(v.vals, val)
			}
			_, err := d.Token()
			return v, err
		}
	}
	return pkgValue{kind: 'x'}, nil
}

func indexOf(l []string, s string) int {
	for i, x := range l {
		if x == s {
			return i
		}
	}
	return -1
}

// pkgJSON is what resolution reads of a package.json.
type pkgJSON struct {
	path    string
	name    string
	typ     string
	exports *pkgValue
	imports *pkgValue
}

func (p *pkgJSON) dir() string { return filepath.Dir(p.path) }

// packageResolver resolves bare and "#" specifiers for one script; the
// package.json files it reads are kept for the script's life.
type packageResolver struct {
	mu    sync.Mutex
	pkgs  map[string]*pkgJSON // path → parsed (nil: none there)
	perrs map[string]error    // path → invalid package.json
}

func newPackageResolver() *packageResolver {
	return &packageResolver{pkgs: map[string]*pkgJSON{}, perrs: map[string]error{}}
}

// readPkg reads the package.json at path; nil, nil when there is none.
func (r *packageResolver) readPkg(path string) (*pkgJSON, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.pkgs[path]; ok {
		return p, r.perrs[path]
	}
	p, err := parsePkg(path)
	r.pkgs[path] = p
	if err != nil {
		r.perrs[path] = err
	}
	return p, err
}

func parsePkg(path string) (*pkgJSON, error) {
	b, err := fsutil.ReadRegular(path, maxPackageJSON)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, fsutil.ErrNotRegular) && isDir(path) {
			return nil, nil
		}
		return nil, &ResolveError{Code: "ERR_INVALID_PACKAGE_CONFIG", Message: fmt.Sprintf("Invalid package config %s. (%v)", path, err)}
	}
	d := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
	top, err := decodePkgValue(d, 0)
	if err == nil {
		if _, e := d.Token(); e != io.EOF {
			err = errors.New("unexpected data after the value")
		}
	}
	if err != nil || top.kind != 'o' {
		if err == nil {
			err = errors.New("not an object")
		}
		return nil, &ResolveError{Code: "ERR_INVALID_PACKAGE_CONFIG", Message: fmt.Sprintf("Invalid package config %s. (%v)", path, err)}
	}
	p := &pkgJSON{path: path}
	if v, ok := top.get("name"); ok && v.kind == 's' {
		p.name = v.str
	}
	if v, ok := top.get("type"); ok && v.kind == 's' {
		p.typ = v.str
	}
	if v, ok := top.get("exports"); ok && v.kind != 'n' {
		p.exports = &v
	}
	if v, ok := top.get("imports"); ok && v.kind == 'o' {
		p.imports = &v
	}
	return p, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// scope finds the package.json nearest to dir (dir, then its parents,
// not past a node_modules directory); nil when none.
func (r *packageResolver) scope(dir string) (*pkgJSON, error) {
	for {
		p, err := r.readPkg(filepath.Join(dir, "package.json"))
		if p != nil || err != nil {
			return p, err
		}
		if filepath.Base(dir) == "node_modules" {
			return nil, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, nil
		}
		dir = parent
	}
}

// resolve resolves a bare or "#" specifier imported from a file in dir
// (importer names it in errors). handled is false for a package without
// "exports" (path is then its directory, or the file under it) or one
// not found (path ""): the require module's own lookup (main, index, the
// file under the package) then applies, and names what is missing. The
// path returned is the file the target names, before the extension
// probing of resolvePath.
func (r *packageResolver) resolve(spec, dir, importer string, conds []string) (path string, handled bool, err error) {
	if strings.HasPrefix(spec, "#") {
		p, err := r.imports(spec, dir, importer, conds)
		return p, err == nil || p != "", err
	}
	return r.pkg(spec, dir, importer, conds)
}

// pkg is PACKAGE_RESOLVE for a bare name.
func (r *packageResolver) pkg(spec, dir, importer string, conds []string) (string, bool, error) {
	name, sub, err := splitPackage(spec, importer)
	if err != nil {
		return "", true, err
	}
	// PACKAGE_SELF_RESOLVE: the package names itself.
	if s, err := r.scope(dir); err != nil {
		return "", true, err
	} else if s != nil && s.exports != nil && s.name == name {
		p, err := r.exports(s, sub, importer, conds)
		return p, true, err
	}
	for d := dir; ; {
		nm := d
		if filepath.Base(d) != "node_modules" {
			nm = filepath.Join(d, "node_modules")
		}
		pd := filepath.Join(nm, filepath.FromSlash(name))
		if isDir(pd) {
			p, err := r.readPkg(filepath.Join(pd, "package.json"))
			if err != nil {
				return "", true, err
			}
			if p == nil || p.exports == nil {
				// No "exports": the legacy lookup (main, index, the file).
				return filepath.Join(pd, filepath.FromSlash(sub)), false, nil
			}
			path, err := r.exports(p, sub, importer, conds)
			return path, true, err
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false, nil
		}
		d = parent
	}
}

// validName is what Node accepts as a package name's first segment.
func splitPackage(spec, importer string) (name, sub string, err error) {
	name = spec
	if i := strings.IndexByte(spec, '/'); i >= 0 {
		name = spec[:i]
	}
	bad := spec == ""
	if strings.HasPrefix(spec, "@") {
		i := strings.IndexByte(spec, '/')
		if i < 0 {
			bad = true
		} else if j := strings.IndexByte(spec[i+1:], '/'); j >= 0 {
			name = spec[:i+1+j]
		} else {
			name = spec
		}
	}
	if strings.HasPrefix(name, ".") || strings.ContainsAny(name, "\\%") {
		bad = true
	}
	if bad {
		return "", "", &ResolveError{Code: "ERR_INVALID_MODULE_SPECIFIER", Message: fmt.Sprintf("Invalid module %q is not a valid package name imported from %s", spec, importer)}
	}
	return name, "." + spec[len(name):], nil
}

// exports is PACKAGE_EXPORTS_RESOLVE.
func (r *packageResolver) exports(p *pkgJSON, sub, importer string, conds []string) (string, error) {
	ex := *p.exports
	dotKeys := 0
	if ex.kind == 'o' {
		for _, k := range ex.keys {
			if strings.HasPrefix(k, ".") {
				dotKeys++
			}
		}
		if dotKeys > 0 && dotKeys != len(ex.keys) {
			return "", &ResolveError{Code: "ERR_INVALID_PACKAGE_CONFIG", Message: fmt.Sprintf("Invalid package config %s while importing %s. \"exports\" cannot contain some keys starting with '.' and some not. The exports object must either be an object of package subpath keys or an object of main entry condition name keys only.", p.path, importer)}
		}
	}
	if sub == "." {
		main := ex
		if dotKeys > 0 {
			v, ok := ex.get(".")
			if !ok {
				return "", notExported(p, sub, importer)
			}
			main = v
		}
		res, err := r.target(p, main, "", "", false, ".", importer, conds)
		if err != nil {
			return "", err
		}
		if res == "" {
			return "", notExported(p, sub, importer)
		}
		return res, nil
	}
	if dotKeys > 0 {
		res, err := r.matchKeys(p, sub, ex, false, importer, conds)
		if err != nil || res != "" {
			return res, err
		}
	}
	return "", notExported(p, sub, importer)
}

func notExported(p *pkgJSON, sub, importer string) error {
	if sub == "." {
		return &ResolveError{Code: "ERR_PACKAGE_PATH_NOT_EXPORTED", Message: fmt.Sprintf("No \"exports\" main defined in %s imported from %s", p.path, importer)}
	}
	return &ResolveError{Code: "ERR_PACKAGE_PATH_NOT_EXPORTED", Message: fmt.Sprintf("Package subpath '%s' is not defined by \"exports\" in %s imported from %s", sub, p.path, importer)}
}

// imports is PACKAGE_IMPORTS_RESOLVE.
func (r *packageResolver) imports(spec, dir, importer string, conds []string) (string, error) {
	if spec == "#" || strings.HasPrefix(spec, "#/") {
		return "", &ResolveError{Code: "ERR_INVALID_MODULE_SPECIFIER", Message: fmt.Sprintf("Invalid module %q is not a valid internal imports specifier name imported from %s", spec, importer)}
	}
	s, err := r.scope(dir)
	if err != nil {
		return "", err
	}
	if s != nil && s.imports != nil {
		res, err := r.matchKeys(s, spec, *s.imports, true, importer, conds)
		if err != nil || res != "" {
			return res, err
		}
	}
	where := ""
	if s != nil {
		where = " in package " + s.path
	}
	return "", &ResolveError{Code: "ERR_PACKAGE_IMPORT_NOT_DEFINED", Message: fmt.Sprintf("Package import specifier %q is not defined%s imported from %s", spec, where, importer)}
}

// matchKeys is PACKAGE_IMPORTS_EXPORTS_RESOLVE: the exact key, else the
// pattern key with the longest prefix before its "*".
func (r *packageResolver) matchKeys(p *pkgJSON, key string, obj pkgValue, isImports bool, importer string, conds []string) (string, error) {
	if !strings.Contains(key, "*") {
		if v, ok := obj.get(key); ok {
			return r.target(p, v, "", "", isImports, key, importer, conds)
		}
	}
	var patterns []int
	for i, k := range obj.keys {
		if strings.Count(k, "*") == 1 {
			patterns = append(patterns, i)
		}
	}
	sort.SliceStable(patterns, func(a, b int) bool { return patternKeyLess(obj.keys[patterns[a]], obj.keys[patterns[b]]) })
	for _, i := range patterns {
		k := obj.keys[i]
		star := strings.IndexByte(k, '*')
		base, trailer := k[:star], k[star+1:]
		if !strings.HasPrefix(key, base) || key == base {
			continue
		}
		if trailer != "" && (!strings.HasSuffix(key, trailer) || len(key) < len(k)) {
			continue
		}
		match := key[len(base) : len(key)-len(trailer)]
		return r.target(p, obj.vals[i], match, k, isImports, key, importer, conds)
	}
	return "", nil
}

// patternKeyLess is PATTERN_KEY_COMPARE: the longer prefix before the
// "*" first, then the longer key.
func patternKeyLess(a, b string) bool {
	ia, ib := strings.IndexByte(a, '*'), strings.IndexByte(b, '*')
	if ia != ib {
		return ia > ib
	}
	return len(a) > len(b)
}

// invalidSegment matches a target's segments Node refuses after its
// first one: ".", "..", "node_modules" (also percent-encoded). (An empty
// segment is only deprecated in Node: allowed.)
var invalidSegment = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|\\|/)((\.|%2e)(\.|%2e)?|(n|%6e|%4e)(o|%6f|%4f)(d|%64|%44)(e|%65|%45)_(m|%6d|%4d)(o|%6f|%4f)(d|%64|%44)(u|%75|%55)(l|%6c|%4c)(e|%65|%45)(s|%73|%53))(\\|/|$)`)
})

// target is PACKAGE_TARGET_RESOLVE: "" when no condition matches.
// patternKey is the key matched ("./sub/*"), "" for an exact one; key is
// the subpath or name asked for.
func (r *packageResolver) target(p *pkgJSON, t pkgValue, match, patternKey string, isImports bool, key, importer string, conds []string) (string, error) {
	pattern := patternKey != ""
	matched := key
	if pattern {
		matched = patternKey
	}
	switch t.kind {
	case 's':
		s := t.str
		if !strings.HasPrefix(s, "./") {
			if !isImports || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "/") || isURL(s) {
				return "", invalidTarget(p, s, matched, isImports, importer)
			}
			if pattern {
				s = strings.ReplaceAll(s, "*", match)
			}
			// An imports target naming a package (or a built-in
			// module: the name itself).
			if ProvidesModule(s) {
				return s, nil
			}
			path, handled, err := r.pkg(s, p.dir(), importer, conds)
			if err != nil {
				return "", err
			}
			if !handled && path == "" {
				return "", &ResolveError{Code: "ERR_MODULE_NOT_FOUND", Message: fmt.Sprintf("Cannot find package '%s' imported from %s", s, importer)}
			}
			return path, nil // (without "exports": its directory or file, looked up as legacy)
		}
		if invalidSegment().MatchString(s[2:]) {
			return "", invalidTarget(p, s, matched, isImports, importer)
		}
		if pattern && invalidSegment().MatchString(match) {
			return "", &ResolveError{Code: "ERR_INVALID_MODULE_SPECIFIER", Message: fmt.Sprintf("Invalid module %q request is not a valid match in pattern %q for the %q resolution of %s imported from %s", key, patternKey, field(isImports), p.path, importer)}
		}
		if pattern {
			s = strings.ReplaceAll(s, "*", match)
		}
		return filepath.Join(p.dir(), filepath.FromSlash(s)), nil
	case 'a':
		var last error
		for _, item := range t.items {
			res, err := r.target(p, item, match, patternKey, isImports, key, importer, conds)
			var re *ResolveError
			if errors.As(err, &re) && re.Code == "ERR_INVALID_PACKAGE_TARGET" {
				last = err
				continue
			}
			if err != nil {
				return "", err
			}
			if res != "" {
				return res, nil
			}
		}
		return "", last
	case 'o':
		for _, k := range t.keys {
			if _, err := strconv.Atoi(k); err == nil {
				return "", &ResolveError{Code: "ERR_INVALID_PACKAGE_CONFIG", Message: fmt.Sprintf("Invalid package config %s while importing %s. \"exports\" cannot contain numeric property keys.", p.path, importer)}
			}
		}
		for i, k := range t.keys {
			if k != "default" && indexOf(conds, k) < 0 {
				continue
			}
			res, err := r.target(p, t.vals[i], match, patternKey, isImports, key, importer, conds)
			if err != nil || res != "" {
				return res, err
			}
		}
		return "", nil
	case 'n':
		return "", nil
	}
	return "", invalidTarget(p, fmt.Sprint(t.str), matched, isImports, importer)
}

func field(isImports bool) string {
	if isImports {
		return "imports"
	}
	return "exports"
}

func isURL(s string) bool {
	i := strings.Index(s, ":")
	return i > 1 && !strings.ContainsAny(s[:i], "/\\")
}

func invalidTarget(p *pkgJSON, target, key string, isImports bool, importer string) error {
	rel := ""
	if !isImports && !strings.HasPrefix(target, "./") {
		rel = "; targets must start with \"./\""
	}
	what := "exports"
	if isImports {
		what = "imports"
	}
	return &ResolveError{Code: "ERR_INVALID_PACKAGE_TARGET", Message: fmt.Sprintf("Invalid %q target %q defined for '%s' in the package config %s imported from %s%s", what, target, key, p.path, importer, rel)}
}

// PackageResolver resolves package.json "imports" names ("#src/x") as
// the goja runtime does (Node's rule; an extensionless target or a .ts
// file by its .js name found as pi's loader finds it), for the Node
// runtime's import analysis: one rule for both engines.
type PackageResolver struct{ r *packageResolver }

// NewPackageResolver returns a resolver that keeps the package.json
// files it reads.
func NewPackageResolver() *PackageResolver { return &PackageResolver{newPackageResolver()} }

// ResolveImport resolves a "#" name imported (or, with require, required)
// by the file importer: the file, or an error in Node's words.
func (p *PackageResolver) ResolveImport(spec, importer string, require bool) (string, error) {
	conds := importConditions
	if require {
		conds = requireConditions
	}
	path, _, err := p.r.resolve(spec, filepath.Dir(importer), importer, conds)
	if err != nil {
		return "", err
	}
	return resolvePath("", path), nil
}
