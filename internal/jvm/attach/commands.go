package attach

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ThreadPrint is `jcmd PID Thread.print -l -e`: all threads with locks and
// extended information; -e is dropped for a JVM that does not know it
// (JDK 8), and jstack is the last resort when jcmd is in use and fails.
func (vm *VM) ThreadPrint(ctx context.Context) (string, error) {
	out, err := vm.Execute(ctx, "Thread.print", "-l", "-e")
	var ce *CommandError
	if errors.As(err, &ce) && strings.Contains(ce.Output, "-e") {
		out, err = vm.Execute(ctx, "Thread.print", "-l")
	}
	if err != nil && vm.jcmd != "" && vm.jstack != "" && ctx.Err() == nil {
		if o, err2 := vm.jstackDump(ctx); err2 == nil {
			return o, nil
		}
	}
	return out, err
}

// Flags is VM.flags: the flags set on the command line or by ergonomics,
// one line of -XX:... words.
func (vm *VM) Flags(ctx context.Context) (string, error) { return vm.Execute(ctx, "VM.flags") }

// SystemProperties is VM.system_properties, in java.util.Properties format.
func (vm *VM) SystemProperties(ctx context.Context) (string, error) {
	return vm.Execute(ctx, "VM.system_properties")
}

// HeapInfo is GC.heap_info (JDK 9+).
func (vm *VM) HeapInfo(ctx context.Context) (string, error) { return vm.Execute(ctx, "GC.heap_info") }

// LogOutputs is the JVM's unified logging configuration (VM.log list, JDK 9+).
func (vm *VM) LogOutputs(ctx context.Context) ([]LogOutput, error) {
	out, err := vm.Execute(ctx, "VM.log", "list")
	if err != nil {
		return nil, err
	}
	return parseLogList(out), nil
}

// GCLog says where the JVM writes its GC log.
type GCLog struct {
	// File is the log file as the JVM sees it (inside its mount namespace).
	File string `json:"file,omitempty"`
	// Index is the output's number in VM.log list; `VM.log output=#N
	// what=all=off` removes it again (`VM.log disable` would switch off all
	// logging, the JVM's warnings on stdout included).
	Index int `json:"index"`
	// Enabled is true when EnableGCLog switched it on; false when a file
	// output already logged GC.
	Enabled bool `json:"enabled"`
	// Outputs is the logging configuration after the call.
	Outputs []LogOutput `json:"outputs,omitempty"`
}

// GCLogPrefix starts the name of every GC log file tuneloop switches on.
const GCLogPrefix = "tuneloop-gc-"

// EnableGCLog switches GC logging on, at run time, to path (absolute, as
// the JVM sees it) with rotation, unless an output already writes GC to a
// file: then it returns that file and changes nothing. It runs
//
//	VM.log output=file=PATH what=gc*=info decorators=uptime,time,level,tags output_options=filecount=5,filesize=20M
//
// JDK 8 has no VM.log (no unified logging): the error says so.
func (vm *VM) EnableGCLog(ctx context.Context, path string) (GCLog, error) {
	if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \t\n\"'=,") {
		return GCLog{}, fmt.Errorf("GC log path %q: want an absolute path without spaces, quotes, '=' or ','", path)
	}
	outs, err := vm.LogOutputs(ctx)
	if err != nil {
		var ce *CommandError
		if errors.As(err, &ce) && strings.Contains(ce.Output, "Unknown diagnostic command") {
			return GCLog{}, fmt.Errorf("pid %d: this JVM has no VM.log (JDK 8 or older): GC logging cannot be redirected at run time; restart it with -Xloggc:FILE -XX:+PrintGCDetails -XX:+PrintGCDateStamps: %w", vm.PID, err)
		}
		return GCLog{}, err
	}
	for _, o := range outs {
		// Another tuneloop run's output (tuneloop-gc-*) is not the JVM's
		// own: that run switches it off and deletes it when it ends, so
		// this one gets its own file.
		if o.File() != "" && o.LogsGC() && !strings.HasPrefix(filepath.Base(o.File()), GCLogPrefix) {
			return GCLog{File: o.File(), Index: o.Index, Outputs: outs}, nil
		}
	}
	if _, err := vm.Execute(ctx, "VM.log", "output=file="+path, "what=gc*=info",
		"decorators=uptime,time,level,tags", "output_options=filecount=5,filesize=20M"); err != nil {
		return GCLog{}, err
	}
	outs, err = vm.LogOutputs(ctx)
	if err != nil {
		return GCLog{}, err
	}
	for _, o := range outs {
		if o.File() == path && o.LogsGC() {
			return GCLog{File: path, Index: o.Index, Enabled: true, Outputs: outs}, nil
		}
	}
	return GCLog{Outputs: outs}, fmt.Errorf("pid %d: VM.log accepted the command but no output logs GC to %s (can the JVM's user write there?)", vm.PID, path)
}
