package nodeext

// What makes an extension that failed to load in goja one that Node would
// run: the load failed on something goja lacks and Node has, not on the
// extension's own error. Read from the error's text, which is what both
// goja runtimes give (in process, and from an isolated child over the
// plugin protocol).

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// nodeGlobals are the globals of a Node 22 ES module
// (Object.getOwnPropertyNames(globalThis)): a ReferenceError on one of
// them is goja's gap, on any other name the extension's own.
var nodeGlobals = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, name := range strings.Fields(`AbortController AbortSignal AggregateError Array ArrayBuffer Atomics BigInt
		BigInt64Array BigUint64Array Blob Boolean BroadcastChannel Buffer ByteLengthQueuingStrategy CompressionStream
		CountQueuingStrategy Crypto CryptoKey CustomEvent DOMException DataView Date DecompressionStream Error EvalError
		Event EventTarget File FinalizationRegistry Float32Array Float64Array FormData Function Headers Infinity
		Int16Array Int32Array Int8Array Intl Iterator JSON Map Math MessageChannel MessageEvent MessagePort NaN
		Navigator Number Object Performance PerformanceEntry PerformanceMark PerformanceMeasure PerformanceObserver
		PerformanceObserverEntryList PerformanceResourceTiming Promise Proxy RangeError ReadableByteStreamController
		ReadableStream ReadableStreamBYOBReader ReadableStreamBYOBRequest ReadableStreamDefaultController
		ReadableStreamDefaultReader ReferenceError Reflect RegExp Request Response Set SharedArrayBuffer String
		SubtleCrypto Symbol SyntaxError TextDecoder TextDecoderStream TextEncoder TextEncoderStream TransformStream
		TransformStreamDefaultController TypeError URIError URL URLSearchParams Uint16Array Uint32Array Uint8Array
		Uint8ClampedArray WeakMap WeakRef WeakSet WebAssembly WebSocket WritableStream WritableStreamDefaultController
		WritableStreamDefaultWriter atob btoa clearImmediate clearInterval clearTimeout console crypto decodeURI
		decodeURIComponent encodeURI encodeURIComponent escape eval fetch global globalThis isFinite isNaN navigator
		parseFloat parseInt performance process queueMicrotask setImmediate setInterval setTimeout structuredClone
		unescape`) {
		m[name] = true
	}
	return m
})

var (
	// ReferenceError: Intl is not defined
	referenceError = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`ReferenceError: ([A-Za-z_$][\w$]*) is not defined`)
	})
	// Cannot find module "node:sqlite": it is neither a file next to the
	// script, a package in node_modules, nor a module atomic provides
	cannotFind = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`Cannot find module "([^"]+)": it is neither a file next to the script`)
	})
	// Node's fs and child_process functions goja's versions leave out:
	// fs.watch() is not available to extensions: …
	notInGoja = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b((?:fs|child_process)\.\w+)\(\) is not available to extensions`)
	})
	// A name a module goja provides does not export (goja's strict
	// modules say so where it is used): goja's gap when the module is one
	// of Node's, not for the pi packages (Node's copies are the same).
	notExported = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`"([^"]+)" is not available from "([^"]+)" in atomic's script runtime`)
	})
	// goja's parser on code esbuild accepted (a transform error has no
	// "SyntaxError:"): a compile error (… at file:line:col) or a regular
	// expression goja's engine does not take.
	gojaSyntax = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`SyntaxError: (?:.* at \S+:\d+:\d+$|Invalid flags supplied to RegExp constructor|Invalid regular expression)`)
	})
)

// gojaLacked reports what a goja load error says goja lacks (and Node
// has), or "" when the error is the extension's own (a thrown Error, a
// failing factory, a syntax error both runtimes see, a module that is
// nowhere) or the load's (a deadline). g is the extension's import graph:
// a package goja did not find but esbuild read is one Node finds.
func gojaLacked(err error, g Graph) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	if m := referenceError().FindStringSubmatch(msg); m != nil && nodeGlobals()[m[1]] {
		return "the global " + m[1]
	}
	if m := cannotFind().FindStringSubmatch(msg); m != nil {
		if name := m[1]; isBuiltin(name) || (!isRelative(name) && inGraph(g, name)) {
			return `the module "` + name + `"`
		}
	}
	if m := notExported().FindStringSubmatch(msg); m != nil && isBuiltin(m[2]) {
		return fmt.Sprintf("%s from the module %q", m[1], m[2])
	}
	if m := notInGoja().FindStringSubmatch(msg); m != nil {
		return m[1] + "()"
	}
	if strings.Contains(msg, "SyntaxError: ") {
		for _, line := range strings.Split(msg, "\n") {
			if gojaSyntax().MatchString(strings.TrimSpace(line)) {
				return "syntax the built-in runtime cannot parse"
			}
		}
	}
	return ""
}

// inGraph reports whether the graph has files of the package a bare
// import names (esbuild found it under node_modules, as Node will).
func inGraph(g Graph, name string) bool {
	for _, m := range g.Missing {
		if m.Name == name {
			return false
		}
	}
	dir := "/node_modules/" + packageName(name) + "/"
	for _, f := range g.Files {
		if strings.Contains(f, dir) {
			return true
		}
	}
	return false
}
