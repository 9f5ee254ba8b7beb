package nodeext

import _ "embed"

//go:generate go run ./internal/gen

// hostProgram and loaderProgram are the Node side of the runtime, built
// from node/ by `go generate` (checked in; .ci/run checks they are up to
// date).
var (
	//go:embed dist/host.mjs
	hostProgram []byte
	//go:embed dist/loader.mjs
	loaderProgram []byte
)
