//go:build !unix

package grpcext

import (
	"errors"
	"net"
	"os"
	"time"
)

// laneSockets: no event lane here; every call goes through gRPC.
func laneSockets() (net.Conn, *os.File, error) {
	return nil, nil, errors.New("no event lane on this system")
}

// setReadTimeout: no lanes here.
func setReadTimeout(*os.File, time.Duration) error {
	return errors.New("no host lane on this system")
}
