// Command helpcmds prints the path of every command of tuneloop's tree, one
// a line, hidden ones included (which --help does not list), for
// scripts/help-compare.sh.
package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/cli"
)

func main() {
	root := cli.NewRoot(cli.OSEnv())
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		fmt.Println(strings.Join(path, " "))
		for _, s := range c.Commands() {
			walk(s, append(path[:len(path):len(path)], s.Name()))
		}
	}
	walk(root, nil)
}
