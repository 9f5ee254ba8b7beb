package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/atomic-go/atomic/host/acp"
	"github.com/atomic-go/atomic/host/app"
)

// modeACP is --mode acp: the Agent Client Protocol on stdio (host/acp).
const modeACP = app.ModeACP

func serveACP(ctx context.Context, rt *app.Runtime, in io.Reader, out io.Writer, logger *slog.Logger) int {
	return serve(ctx, rt, in, logger, func(onWriteErr func(error)) frontEnd {
		return acp.New(rt, out, onWriteErr, acp.Options{Version: buildVersion()})
	})
}
