package jsext

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func fetchServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("Set-Cookie", "a=1")
		w.Header().Add("Set-Cookie", "b=2")
		_, _ = io.WriteString(w, `{"hello":"world"}`)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_ = json.NewEncoder(w).Encode(map[string]string{"method": r.Method, "x": r.Header.Get("X-Test"), "type": r.Header.Get("Content-Type"), "body": string(b)})
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nothing here", http.StatusNotFound) })
	mux.HandleFunc("/redir", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/json", http.StatusFound) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, strings.Repeat("x", 4096)) })
	// /hang answers only when the client gives up.
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestFetch: fetch, Request, Response and Headers over Go's HTTP client:
// status, ok, headers, text/json/arrayBuffer, a POST body, redirects, an
// AbortSignal that stops a request in flight, and the body size bound.
func TestFetch(t *testing.T) {
	srv := fetchServer(t)
	defer func(n int) { maxFetchBody = n }(maxFetchBody)
	maxFetchBody = 1024
	h := newHarness(t)
	out := evalScript(t, h, "fetch.ts", strings.ReplaceAll(`const base = "BASE";
export default async function (pi: any) {
  const r: any = {};
  const a = await fetch(base + "/json");
  r.json = [a.ok, a.status, a.headers.get("content-type"), a.headers.getSetCookie(), a.headers.get("set-cookie"), await a.json(), a.bodyUsed, a instanceof Response];
  const b = await fetch(new URL("/echo", base), { method: "post", headers: { "X-Test": "yes" }, body: "payload" });
  r.echo = await b.json();
  const c = await fetch(base + "/missing");
  r.missing = [c.ok, c.status, c.statusText, (await c.text()).trim()];
  const d = await fetch(base + "/redir");
  r.redir = [d.redirected, d.url === base + "/json", d.status, (await d.arrayBuffer()).byteLength];
  const m = await fetch(base + "/redir", { redirect: "manual" });
  r.manual = [m.status, m.headers.get("location")];
  const ac = new AbortController();
  const p = fetch(base + "/hang", { signal: ac.signal });
  setTimeout(() => ac.abort(), 0);
  r.abort = await p.then(() => "resolved", (e: any) => e.name);
  r.big = await fetch(base + "/big").then(() => "resolved", (e: any) => [e instanceof TypeError, String(e.message).includes("larger than")]);
  r.bad = await fetch("ftp://x/y").then(() => "resolved", (e: any) => e instanceof TypeError);
  const hd = new Headers([["A", "1"], ["b", "2"]]);
  hd.append("a", "3");
  hd.set("B", "4");
  r.headers = [[...hd], hd.has("A"), hd.get("c")];
  const res = Response.json({ x: 1 }, { status: 201 });
  r.response = [res.status, res.ok, res.headers.get("content-type"), await res.text(), await new Response("hi").text()];
  const chunks: number[] = [];
  for await (const ch of (await fetch(base + "/json")).body) chunks.push(ch.length);
  r.stream = chunks;
  pi.registerFlag("out", { type: "string", default: JSON.stringify(r) });
}`, "BASE", srv.URL))
	want := `{"json":[true,200,"application/json",["a=1","b=2"],"a=1, b=2",{"hello":"world"},true,true],` +
		`"echo":{"body":"payload","method":"POST","type":"text/plain;charset=UTF-8","x":"yes"},` +
		`"missing":[false,404,"Not Found","nothing here"],"redir":[true,true,200,17],"manual":[302,"/json"],"abort":"AbortError",` +
		`"big":[true,true],"bad":true,"headers":[[["a","1, 3"],["b","4"]],true,null],` +
		`"response":[201,true,"application/json","{\"x\":1}","hi"],"stream":[17]}`
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

// TestFetchOffline: with the agent offline, fetch rejects with a
// TypeError that says so, and nothing reaches the network.
func TestFetchOffline(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits++ }))
	defer srv.Close()
	h := newHarness(t)
	h.rt.Offline = true
	out := evalScript(t, h, "offline.ts", `export default async function (pi: any) {
  const msg = await fetch("`+srv.URL+`").then(() => "resolved", (e: any) => (e instanceof TypeError) + " " + e.message);
  pi.registerFlag("out", { type: "string", default: msg });
}`)
	if !strings.HasPrefix(out, "true fetch failed: the agent runs offline") || hits != 0 {
		t.Fatalf("got %q (%d requests)", out, hits)
	}
}

// TestFetchOfflineIsolated: an isolated script's child process is offline
// when the agent is.
func TestFetchOfflineIsolated(t *testing.T) {
	h := newHarness(t)
	h.rt.Offline = true
	ext, err := h.loadIsolated("iso-offline.ts", `import { Type } from "@sinclair/typebox";
export default function (pi: any) {
  pi.registerTool({ name: "get", description: "get", parameters: Type.Object({}),
    async execute() {
      const text = await fetch("http://127.0.0.1:9/").then(() => "resolved", (e: any) => e.message);
      return { content: [{ type: "text", text }] };
    } });
}`, 0)
	if err != nil {
		t.Fatalf("load: %v\n%s", err, h.logs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := ext.ExecuteTool(ctx, "get", "c1", map[string]any{}, nil)
	if err != nil || !strings.Contains(res.ResultText(), "offline") {
		t.Fatalf("%+v %v", res, err)
	}
}
