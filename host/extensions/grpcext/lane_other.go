//go:build !unix

package grpcext

import (
	"errors"
	"net"
	"os"
)

// laneSockets: no event lane here; every call goes through gRPC.
func laneSockets() (net.Conn, *os.File, error) {
	return nil, nil, errors.New("no event lane on this system")
}
