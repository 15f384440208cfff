// Package cli builds tuneloop's command tree. It is the only importer of
// cobra: each command lives in its own file as a constructor returning a
// *cobra.Command, with an Options struct and a run function tests call
// directly.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/version"
)

// Exit codes a script can rely on.
const (
	ExitOK       = 0
	ExitFailure  = 1 // the command could not do its job
	ExitUsage    = 2 // bad flags or arguments
	ExitFindings = 3 // ran, and found something at or above --fail-on
)

// Env is the outside world a command may touch; tests substitute it.
type Env struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader
	Getenv         func(string) string
	// Terminal is true when Stdout is a terminal (live status lines, colour).
	Terminal bool
	// lang is the --lang a command was given, for its error message too.
	lang finding.Lang
}

// OSEnv is the real process environment.
func OSEnv() *Env {
	return &Env{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin, Getenv: os.Getenv,
		Terminal: isTerminal(os.Stdout)}
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// Lang is the default language from the environment (LC_ALL, LC_MESSAGES, LANG).
func (e *Env) Lang() finding.Lang {
	if e.lang != "" {
		return e.lang
	}
	return finding.LangFromEnv(e.Getenv)
}

// useLang records a command's --lang: its errors are printed in it too.
func (e *Env) useLang(l finding.Lang) { e.lang = l }

// ExitError carries an exit code through cobra without printing usage.
type ExitError struct {
	Code int
	Err  error // nil when the code speaks for itself (findings over threshold)
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// NewRoot builds the command tree.
func NewRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:   "tuneloop",
		Short: helpText(finding.T("Performance diagnosis and tuning for Java services on Linux", "Linux 上 Java 服务的性能诊断与调优")),
		Long: helpText(finding.T(
			"tuneloop audits the host, records a run under load, diagnoses the bottleneck\n"+
				"and reports the fix (x86-64 and ARM64/Kunpeng, JDK 8-25).",
			"tuneloop 审计主机，在负载下记录一次运行，诊断瓶颈并给出修复方法\n"+
				"（支持 x86-64 与 ARM64/鲲鹏，JDK 8-25）。",
		)),
		Version:       version.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError(err) })
	root.AddCommand(newCheckCmd(env), newAnalyzeCmd(env), newLoadCmd(env), newJVMCmd(env), newRecordCmd(env), newRunsCmd(env), newPortingCmd(env), newRunCmd(env), newCompareCmd(env),
		newApplyCmd(env), newRevertCmd(env), newWatchdogCmd(env), newClockCmd(env), newJMeterServeCmd(env), newExperimentCmd(env), newProbeCmd(env))
	installHelp(root, env)
	return root
}

// Code maps an error returned by Execute to the process exit code, printing
// it to stderr when it carries a message.
func Code(env *Env, err error) int {
	if err == nil {
		return ExitOK
	}
	err = argsError(err)
	code := ExitFailure
	var ee *ExitError
	if errors.As(err, &ee) {
		code = ee.Code
		if ee.Err == nil {
			return code
		}
	}
	fmt.Fprintln(env.Stderr, "tuneloop:", finding.Safe(finding.Localize(err, env.Lang()))) // errors quote paths and file text
	return code
}
