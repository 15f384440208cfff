package attach

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// findTool looks for a JDK tool: next to the target's own java when it
// shares our filesystem, else on PATH.
func findTool(pid int, name string) string {
	if sameNamespace(pid, "mnt") {
		if exe, err := os.Readlink(procPath(pid, "exe")); err == nil {
			p := filepath.Join(filepath.Dir(exe), name)
			if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
				return p
			}
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}

// useTools switches the VM to the JDK tools on this host.
func (vm *VM) useTools() error {
	vm.jcmd = findTool(vm.PID, "jcmd")
	vm.jstack = findTool(vm.PID, "jstack")
	if vm.jcmd == "" {
		return fmt.Errorf("pid %d: no jcmd found (next to the JVM's java or on PATH)", vm.PID)
	}
	vm.Via = vm.jcmd
	return nil
}

// runJCmd runs `jcmd PID line` and strips jcmd's "PID:" first line.
func (vm *VM) runJCmd(ctx context.Context, line string) (string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, vm.opts.commandTimeout())
		defer cancel()
	}
	args := append([]string{strconv.Itoa(vm.PID)}, strings.Fields(line)...)
	out, err := runTool(ctx, vm.jcmd, args...)
	prefix := strconv.Itoa(vm.PID) + ":\n"
	out = strings.TrimPrefix(out, prefix)
	if err != nil {
		if ctx.Err() != nil {
			return "", vm.transportError(ctx, "jcmd "+line, ctx.Err())
		}
		return out, &CommandError{Command: line, Code: -1, Output: strings.TrimSpace(out + "\n" + err.Error())}
	}
	// jcmd exits 0 even when the JVM rejected the command.
	if strings.HasPrefix(out, "java.lang.IllegalArgumentException") || strings.HasPrefix(out, "Exception in thread") {
		return out, &CommandError{Command: line, Code: -1, Output: out}
	}
	return out, nil
}

func runTool(ctx context.Context, tool string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, tool, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.String(), err
}

// jstackDump is the last resort for a thread dump: `jstack -l -e PID`
// (JDK 11+), or `jstack -l PID` for an older jstack.
func (vm *VM) jstackDump(ctx context.Context) (string, error) {
	if vm.jstack == "" {
		return "", fmt.Errorf("pid %d: no jstack found", vm.PID)
	}
	out, err := runTool(ctx, vm.jstack, "-l", "-e", strconv.Itoa(vm.PID))
	if err != nil && ctx.Err() == nil {
		out, err = runTool(ctx, vm.jstack, "-l", strconv.Itoa(vm.PID))
	}
	if err != nil {
		return out, fmt.Errorf("%s: %w: %s", vm.jstack, err, finding.FirstLine(out))
	}
	return out, nil
}
