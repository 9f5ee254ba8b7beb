const r = [];
const t = (f) => { try { return f(); } catch (e) { return "ERR " + e.name + " " + (e.code || "") + " " + e.message; } };
const rel = [["./x", "file:///a/b.ts"], ["../x", "file:///a/b/c.ts"], ["../../../x", "file:///a/b/c.ts"], ["x?q=1#h", "http://e.com/a/b"], ["?q", "http://e.com/a/b?z#y"], ["#h2", "http://e.com/a/b?z#y"], ["//other.org/p", "https://e.com/a"], ["/abs", "http://e.com/a/b/"], ["sub/", "http://e.com/a/"], ["", "http://e.com/a?b#c"], ["prompts/x.md", "file:///home/u/pkg/dist/index.js"], ["http://x.com", "file:///a"]];
for (const [a, b] of rel) r.push(t(() => new URL(a, b).href));
for (const s of ["HTTP://EXAMPLE.com:80/a/./b/../c?x=1 2#f g", "https://user:pa ss@h.com:8443/p", "file:///C:/x/../y", "mailto:a@b.c", "http://[::1]:3000/", "http://münchen.de/ü?ü=ü#ü", "data:text/plain,hi", "nope", "http://", "http://a/%zz", "blob:https://a.com/uuid", "http://1.2.3/x", "ws://h/x"]) {
  r.push(t(() => { const u = new URL(s); return [u.href, u.origin, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash]; }));
}
r.push(t(() => new URL("x", "relative").href));
r.push(URL.canParse("./x", "file:///a/"), URL.canParse("x"));
r.push(t(() => { const u = new URL("http://a.com/p?x=1&y=2&x=3"); const sp = u.searchParams; const out = [sp.get("x"), sp.getAll("x"), sp.has("y"), sp.get("z"), sp.size]; sp.append("z", "a b&c"); sp.delete("y"); out.push(u.href, u.search); sp.set("x", "9"); out.push(u.href); sp.sort(); out.push(u.href); u.search = "?k=v"; out.push(sp.get("k"), [...sp].length); for (const k of ["x", "k"]) sp.delete(k); out.push(u.href); return out; }));
r.push(t(() => { const u = new URL("http://a.com/p"); u.pathname = "/a b"; u.hash = "h"; u.search = "q=1"; u.port = "8080"; u.hostname = "b.org"; u.protocol = "https"; u.username = "me"; return u.href; }));
r.push(t(() => { const u = new URL("http://a.com/p"); u.href = "https://c.org/z?y"; return [u.href, u.searchParams.get("y")]; }));
r.push(t(() => new URLSearchParams("a=1&b=%zz&c=%E2%82%AC+x&&d").toString()));
r.push(t(() => [...new URLSearchParams({ a: "1", "b c": "~!'()*" })].join("|") + " " + new URLSearchParams([["x", "é"], ["y", "+"]]).toString()));
r.push(t(() => new URLSearchParams("?a=1").get("a")));
r.push(t(() => JSON.stringify({ u: new URL("http://x/y") }) + String(new URL("http://x")) + Object.keys(new URL("http://x")).length));
const url = require("url");
r.push(t(() => url.fileURLToPath("file:///a%20b/c%23d")), t(() => url.pathToFileURL("/a b/c#d?e%f").href), t(() => url.pathToFileURL("/a/b/").href));
r.push(t(() => url.fileURLToPath("file:///a%2fb")), t(() => url.fileURLToPath("http://x/a")), t(() => url.fileURLToPath("file://host/a")), t(() => url.fileURLToPath("file://localhost/etc/x")), t(() => url.fileURLToPath(new URL("./p/q.md", "file:///r/s/t.js"))));
r.push(url.domainToASCII("münchen.de"), url.domainToUnicode("xn--mnchen-3ya.de"));
r.push(url.format(new URL("http://u:p@x/y?q#h"), { auth: false, search: false, fragment: false }), url.format(new URL("http://u:p@x/y?q#h")));
module.exports = r;
