package grpcext

import (
	"context"

	"google.golang.org/grpc/metadata"

	"github.com/atomic-go/atomic/host/extensions/hostsvc"
	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
	"github.com/atomic-go/atomic/sdk"
)

// hostServer is the HostService one plugin is served (hostsvc over the
// plugin's host).
func (p *Plugin) hostServer() *hostsvc.Server {
	return &hostsvc.Server{Host: p.host, Path: p.spec.Path, Call: p.callCtx, Registrations: p.updateRegistrations}
}

// callCtx returns the hook call a host call is made for (when the plugin
// passed its id), so that dialogs pause that call's deadline.
func (p *Plugin) callCtx(ctx context.Context) context.Context {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, id := range md.Get(sdk.CallIDMetadata) {
		if v, ok := p.calls.Load(id); ok {
			return v.(context.Context)
		}
	}
	return nil
}

var _ pb.HostServiceServer = (*hostsvc.Server)(nil)
