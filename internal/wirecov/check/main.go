// Command check fails when a field of the protocol's records (sdk/rpcwire)
// was produced by no agent in the black-box tests that recorded into the
// directory named by its argument (see package wirecov).
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/atomic-go/atomic/internal/wirecov"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: check <record directory>")
		os.Exit(2)
	}
	missing, err := wirecov.Missing(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "%d fields of sdk/rpcwire were produced by no agent in the tests (produce them in a test, or remove them):\n  %s\n",
			len(missing), strings.Join(missing, "\n  "))
		os.Exit(1)
	}
	fmt.Printf("every one of the %d fields of sdk/rpcwire was produced by the agent\n", len(wirecov.Fields()))
}
