// Command dimred is the command-line interface of the dimred library:
// supervised dimensionality reduction by graph embedding. Run
// `dimred help` for the commands.
package main

import (
	"os"

	"github.com/dimred/dimred/internal/cli"
)

func main() {
	cli.LimitMemory()
	os.Exit(cli.Do(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
