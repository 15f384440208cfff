// Package inspect reads a live JVM for `tuneloop jvm PID`: attach, read
// its version and flags, take thread dumps on a fixed schedule, and read
// what else was asked (a diagnostic command, properties, heap, GC logging
// switched on), into one result document; and the logging configurations a
// JVM's command line names (LoggingConfigs). It only reads the JVM: the
// knowledge base's checks of it are evaluated above, by session.InspectJVM.
package inspect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jvm/attach"
	"github.com/tuneloop/tuneloop/internal/jvm/jvmopts"
	"github.com/tuneloop/tuneloop/internal/jvm/logconf"
	"github.com/tuneloop/tuneloop/internal/jvm/threaddump"
)

// Options say what to read from the JVM.
type Options struct {
	PID      int
	Attach   attach.Options
	Dumps    int           // thread dumps to take (0: none)
	Interval time.Duration // between dumps
	Props    bool          // VM.system_properties
	Heap     bool          // GC.heap_info
	GCLog    string        // switch GC logging on to this file (as the JVM sees it) when it is off
	Raw      string        // save every raw output in this directory before parsing it
	JCmd     string        // run this diagnostic command
	Lang     finding.Lang  // the language of attach errors
	// OnDump is told of each dump taken (i of n), for a progress line.
	OnDump func(i, n int)
}

// Result is the JSON document of `tuneloop jvm PID`.
type Result struct {
	PID      int                  `json:"pid"`
	NSPID    int                  `json:"nspid,omitempty"`
	User     string               `json:"user"`
	Version  string               `json:"version"`
	Via      string               `json:"via"`
	AttachMS float64              `json:"attach_ms"`
	Started  bool                 `json:"listener_started"`
	Flags    *jvmopts.Options     `json:"flags,omitempty"`
	FlagLine string               `json:"flags_raw,omitempty"`
	Dumps    []*threaddump.Report `json:"dumps,omitempty"`
	Series   *threaddump.Series   `json:"series,omitempty"`
	// DumpDuplicates are dumps identical to an earlier one, counted once.
	DumpDuplicates []threaddump.Duplicate `json:"dump_duplicates,omitempty"`
	Set            *threaddump.Set        `json:"-"` // what the text renders
	Findings       []finding.Finding      `json:"findings"`
	// Config and Logging are the checks of this JVM (the knowledge base's
	// jvm.* rules, its logging configurations), filled by the caller that
	// evaluates them (session.InspectJVM), in Findings too.
	Config  []finding.Finding `json:"-"`
	Logging []LogConfig       `json:"logging_configs,omitempty"`
	Props   string            `json:"system_properties,omitempty"`
	Heap    string            `json:"heap_info,omitempty"`
	GCLog   *attach.GCLog     `json:"gc_log,omitempty"`
	GCLogAt string            `json:"gc_log_from_host,omitempty"`
	JCmd    string            `json:"jcmd,omitempty"`
	JCmdOut string            `json:"jcmd_output,omitempty"`
	Raw     map[string]string `json:"raw_files,omitempty"`
	Errors  []string          `json:"errors,omitempty"`
	// Gone is set when the JVM went away during the dumps: the result
	// holds what was taken, and nothing more was asked of it.
	Gone error `json:"-"`
}

// Inspect attaches to the JVM and reads what o asks, in that order:
// version, flags, the diagnostic command, the dumps, then properties, heap
// and GC logging. An error is returned when nothing
// could be reported; a JVM gone during the dumps is the result's Gone.
func Inspect(ctx context.Context, o Options) (*Result, error) {
	if o.Raw != "" {
		if err := os.MkdirAll(o.Raw, 0o700); err != nil { // properties may hold passwords
			return nil, fmt.Errorf("--raw: %w", err)
		}
	}
	vm, err := attach.AttachContext(ctx, o.PID, o.Attach)
	if err != nil {
		return nil, Localize(err, o.Lang)
	}
	res := &Result{PID: vm.PID, User: vm.User, Version: vm.Version, Via: vm.Via,
		AttachMS: float64(vm.Latency.Microseconds()) / 1000, Started: vm.Started, Raw: map[string]string{}}
	if vm.NSPID != vm.PID {
		res.NSPID = vm.NSPID
	}
	if err := res.save(o, "vm-version.txt", vm.Version+"\n"); err != nil {
		return nil, err
	}
	if err := res.readFlags(ctx, vm, o); err != nil {
		return nil, err
	}
	dumps, err := res.takeDumps(ctx, vm, o)
	if err != nil {
		return nil, err
	}
	// Several dumps: each problem once, from the dump that shows it best.
	if len(dumps) > 0 {
		set := threaddump.ReadSet(dumps)
		res.Set = set
		res.Dumps, res.Series, res.DumpDuplicates = set.Reports, set.Series, set.Duplicates
		res.Findings = append(res.Findings, set.Findings...)
		for _, u := range set.Unreadable {
			res.Errors = append(res.Errors, u.Message)
		}
	}
	if res.Gone == nil {
		if err := res.readAsked(ctx, vm, o); err != nil {
			return nil, err
		}
	}
	if res.Findings == nil {
		res.Findings = []finding.Finding{}
	}
	if len(res.Raw) == 0 {
		res.Raw = nil
	}
	return res, nil
}

// save keeps a raw output in o.Raw before anything parses it.
func (res *Result) save(o Options, name, out string) error {
	if o.Raw == "" {
		return nil
	}
	p := filepath.Join(o.Raw, name)
	if err := os.WriteFile(p, []byte(out), 0o600); err != nil {
		return fmt.Errorf("--raw: %w", err)
	}
	res.Raw[name] = p
	return nil
}

// readFlags reads VM.flags and runs the diagnostic command asked.
func (res *Result) readFlags(ctx context.Context, vm *attach.VM, o Options) error {
	flags, err := vm.Flags(ctx)
	if err != nil {
		return Localize(err, o.Lang)
	}
	if err := res.save(o, "vm-flags.txt", flags); err != nil {
		return err
	}
	res.FlagLine = strings.TrimSpace(flags)
	fo := jvmopts.Parse(strings.Fields(flags))
	res.Flags = &fo
	if o.JCmd != "" {
		out, err := vm.Execute(ctx, o.JCmd)
		if serr := res.save(o, "jcmd.txt", out); serr != nil {
			return serr
		}
		if err != nil {
			return Localize(err, o.Lang)
		}
		res.JCmd, res.JCmdOut = o.JCmd, out
	}
	return nil
}

// takeDumps takes o.Dumps thread dumps on a fixed schedule (start +
// i*interval), so a slow dump does not stretch the series. A JVM that goes
// away mid-series leaves the dumps already taken as evidence (res.Gone).
func (res *Result) takeDumps(ctx context.Context, vm *attach.VM, o Options) ([]threaddump.Input, error) {
	first := time.Now()
	var in []threaddump.Input
	for i := 1; i <= o.Dumps; i++ {
		if i > 1 {
			wait := time.NewTimer(time.Until(first.Add(time.Duration(i-1) * o.Interval)))
			select {
			case <-ctx.Done():
				wait.Stop()
				return nil, ctx.Err()
			case <-wait.C:
			}
		}
		out, err := vm.ThreadPrint(ctx)
		if err != nil && len(in) > 0 {
			res.Gone = Localize(err, o.Lang)
			res.Errors = append(res.Errors, finding.SafeLine(fmt.Sprintf("%s %d/%d: %v",
				finding.T("thread dump", "线程转储").In(o.Lang), i, o.Dumps, res.Gone)))
			break
		}
		if err != nil {
			return nil, Localize(err, o.Lang)
		}
		name := fmt.Sprintf("thread-print-%d.txt", i)
		if err := res.save(o, name, out); err != nil {
			return nil, err
		}
		in = append(in, threaddump.Input{Name: name, R: strings.NewReader(out)})
		if o.OnDump != nil {
			o.OnDump(i, o.Dumps)
		}
	}
	return in, nil
}

// readAsked reads the properties and the heap, and switches GC logging on,
// as asked.
func (res *Result) readAsked(ctx context.Context, vm *attach.VM, o Options) error {
	if o.Props {
		out, err := vm.SystemProperties(ctx)
		if err != nil {
			return Localize(err, o.Lang)
		}
		if err := res.save(o, "vm-system-properties.txt", out); err != nil {
			return err
		}
		res.Props = out
	}
	if o.Heap {
		out, err := vm.HeapInfo(ctx)
		if err != nil {
			return Localize(err, o.Lang)
		}
		if err := res.save(o, "gc-heap-info.txt", out); err != nil {
			return err
		}
		res.Heap = out
	}
	if o.GCLog != "" {
		g, err := vm.EnableGCLog(ctx, o.GCLog)
		if err != nil {
			return Localize(err, o.Lang)
		}
		res.GCLog = &g
		if g.File != "" {
			res.GCLogAt = fmt.Sprintf("/proc/%d/root%s", vm.PID, g.File)
		}
	}
	return nil
}

// LogConfig is one logging configuration named by the JVM's command line.
type LogConfig struct {
	Path     string            `json:"path"` // as the JVM sees it
	From     string            `json:"from"` // the option that named it
	Error    string            `json:"error,omitempty"`
	Findings []finding.Finding `json:"findings,omitempty"`
}

// LoggingConfigs finds the logging configurations the JVM's command line
// names and analyses those that are files, read through /proc/PID/root so a
// JVM in a container is read in its own mount namespace. Classpath resources
// inside the jar are reported, not opened.
func LoggingConfigs(pid int, args []string) []LogConfig {
	root := fmt.Sprintf("/proc/%d/root", pid)
	cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	if err != nil {
		cwd = "/"
	}
	var out []LogConfig
	for _, c := range logconf.Discover(args[1:], cwd) {
		if c.Remote || c.Default || c.Path == "" {
			continue
		}
		l := LogConfig{Path: c.Path, From: c.From}
		if c.InJar {
			l.Error = c.Note.EN
			out = append(out, l)
			continue
		}
		cfg, err := logconf.LoadFile(root + c.Path)
		if err != nil {
			l.Error = strings.ReplaceAll(err.Error(), root, "")
		} else {
			l.Findings = logconf.AnalyzeWith(cfg, logconf.OptionsFromArgs(args))
		}
		out = append(out, l)
	}
	return out
}

// localizedError prints an attach error in the user's language and keeps
// the typed error for errors.Is.
type localizedError struct {
	msg string
	err error
}

func (e *localizedError) Error() string { return e.msg }
func (e *localizedError) Unwrap() error { return e.err }

// Localize gives an attach error its message in lang (others unchanged).
func Localize(err error, lang finding.Lang) error {
	var ae *attach.Error
	if errors.As(err, &ae) {
		return &localizedError{msg: ae.Message(lang), err: err}
	}
	return err
}
