package packages

import "testing"

// npm's and git's failures keep the lines that say why (recorded from npm
// 10 and git 2.47).
func TestFailureLines(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{`npm error code E404
npm error 404 Not Found - GET https://registry.npmjs.org/nosuchpkg-xyz-atomic-zz
npm error 404
npm error 404  The requested resource 'nosuchpkg-xyz-atomic-zz@*' could not be found or you do not have permission to access it.
npm error 404
npm error 404 Note that you can also install from a
npm error 404 tarball, folder, http url, or git url.
npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log
`, "npm error code E404 | npm error 404 Not Found - GET https://registry.npmjs.org/nosuchpkg-xyz-atomic-zz | npm error 404  The requested resource 'nosuchpkg-xyz-atomic-zz@*' could not be found or you do not have permission to access it."},
		{`npm error code ETARGET
npm error notarget No matching version found for pi-aliases@99.0.0.
npm error notarget In most cases you or one of your dependencies are requesting a package version that doesn't exist.
npm error A complete log of this run can be found in: /root/.npm/_logs/y-debug-0.log
`, "npm error code ETARGET | npm error notarget No matching version found for pi-aliases@99.0.0."},
		{"npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://x/y\n", "npm ERR! code E404 | npm ERR! 404 Not Found - GET https://x/y"},
		{"Cloning into 'x'...\nfatal: repository 'https://example.invalid/r/' not found\n", "fatal: repository 'https://example.invalid/r/' not found"},
		{"a\nb\nc\nd\n", "b | c | d"},
	} {
		if got := failureLines(c.out); got != c.want {
			t.Errorf("got\n%s\nwant\n%s", got, c.want)
		}
	}
}
