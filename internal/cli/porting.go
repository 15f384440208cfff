package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/porting"
	"github.com/tuneloop/tuneloop/internal/porting/archive"
	"github.com/tuneloop/tuneloop/internal/version"
)

// Exit codes of `tuneloop porting` beyond the common ones.
const (
	ExitPortingUpgrades = 4 // upgrades suggested (with --fail-on upgrade)
	ExitPortingBlockers = 5 // blockers found (with --fail-on blocker or upgrade)
)

// PortingOptions are the flags of `tuneloop porting`.
type PortingOptions struct {
	Paths    []string
	Target   string // linux/arm64 (default) or linux/amd64
	Output   string // text, json, markdown, junit
	FailOn   string // blocker (default), upgrade, none
	Lang     string
	Glibc    string // target glibc version, "" = no check
	All      bool
	OutFile  string
	MaxEntry int64 // bytes; 0 = default
	MaxTotal int64
	MaxDepth int
	// Now is the clock; tests pin it.
	Now func() time.Time
}

func newPortingCmd(env *Env) *cobra.Command {
	o := &PortingOptions{}
	cmd := &cobra.Command{
		Use:   "porting PATH...",
		Short: "Scan an install tree or Java archives for what blocks running on ARM64",
		Long: `Scan each PATH — a directory (an install tree), a .jar/.war/.ear, a Spring
Boot fat jar, a .zip, a .tar(.gz) bundle or a saved container image — for
what stops it from running on the target (linux/arm64 by default). Nested
archives are read in place, never extracted to disk; entry size, total size
and nesting depth are capped (zip bombs and unsafe names are reported).

Every native file found at any depth is judged by its ELF header (class,
machine, glibc symbol versions), grouped with its builds for other platforms
(JNA linux-aarch64, Netty aarch_64, snappy Linux/aarch64, RocksDB linux64...)
across the whole PATH, so a library shipping both x86-64 and aarch64 passes
and Netty-style classifier jars are judged together. Known libraries (Maven
coordinates from pom.properties) are checked against the first version that
works on aarch64. Also reported: class files that load native code nobody
bundles (System.loadLibrary, JNA, JNR), x86-only -XX options in scripts,
units, Dockerfiles and options files, amd64-pinned base images, x86 JDKs and
JDK 8 builds before 8u292; in a docker save / OCI-layout tarball, the image
config's architecture and every layer. Bundled natives are assumed to run on
glibc (musl-only builds do not count); --glibc also checks their GLIBC_x.y.

Verdicts: pass, upgrade (with the version), blocker, to confirm; each with
the evidence (path inside the archive, ELF machine read) and the fix, in
English or Chinese (--lang).

Exit status:
  0  no finding at or above --fail-on (pass and to-confirm never fail)
  4  upgrades suggested (only with --fail-on upgrade)
  5  blockers found (with --fail-on blocker, the default, or upgrade)
  1  error (a PATH could not be read), 2 bad usage`,
		Example: `  tuneloop porting app.jar
  tuneloop porting /opt/myapp --output junit --out porting.xml --fail-on upgrade
  tuneloop porting release.tar.gz --output markdown --lang zh
  tuneloop porting app.war --glibc 2.28        # also check bundled libraries' glibc needs`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Paths = args
			return RunPorting(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Target, "target", "linux/arm64", "platform to check for: linux/arm64 or linux/amd64")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text, json, markdown or junit")
	f.StringVar(&o.FailOn, "fail-on", "blocker", "exit non-zero at this verdict or worse: blocker, upgrade or none")
	f.StringVar(&o.Lang, "lang", "", "language: en or zh (default from LANG)")
	f.StringVar(&o.Glibc, "glibc", "", "the target's glibc version (e.g. 2.28): flag bundled libraries that need a newer one")
	f.BoolVar(&o.All, "all", false, "text output: show the evidence of passing components too")
	f.StringVar(&o.OutFile, "out", "", "write the report to this file instead of standard output")
	f.Int64Var(&o.MaxEntry, "max-entry-bytes", 0, "largest nested archive to inflate into memory (default 256 MiB)")
	f.Int64Var(&o.MaxTotal, "max-total-bytes", 0, "most bytes to inflate per PATH (default 8 GiB)")
	f.IntVar(&o.MaxDepth, "max-depth", 0, "deepest archive nesting to open (default 6)")
	return cmd
}

// RunPorting is the whole `porting` command; tests call it directly.
func RunPorting(ctx context.Context, env *Env, o *PortingOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	if len(o.Paths) == 0 {
		return usageErr(finding.T("porting: give at least one PATH", "porting：至少给出一个 PATH"))
	}
	target, err := porting.ParseTarget(o.Target)
	if err != nil {
		return usageErr(finding.T("--target: %v", "--target:%v"), err)
	}
	format, err := outputFormat(o.Output, porting.Formats())
	if err != nil {
		return err
	}
	failOn := porting.Verdict("")
	switch strings.ToLower(o.FailOn) {
	case "", "blocker":
		failOn = porting.Blocker
	case "upgrade":
		failOn = porting.Upgrade
	case "none":
	default:
		return usageErr(finding.T("--fail-on: want blocker, upgrade or none, got %q", "--fail-on：应为 blocker、upgrade 或 none，实际为 %q"), o.FailOn)
	}
	if o.Glibc != "" && strings.Trim(o.Glibc, "0123456789.") != "" {
		return usageErr(finding.T("--glibc: want a version such as 2.28, got %q", "--glibc：应为 2.28 这样的版本号，实际为 %q"), o.Glibc)
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	opts := porting.Options{Target: target, Glibc: o.Glibc,
		Limits: archive.Limits{MaxEntry: o.MaxEntry, MaxTotal: o.MaxTotal, MaxDepth: o.MaxDepth}}
	rep := &porting.Report{Schema: porting.SchemaID, Tool: "tuneloop", Version: version.Version, Time: now().UTC(), Target: target.String()}
	var failed []string
	for _, p := range o.Paths {
		pr, err := porting.Scan(ctx, p, opts)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			pr = &porting.PathReport{Path: p, Error: err.Error()}
		}
		if pr.Error != "" {
			failed = append(failed, fmt.Sprintf("%s: %s", p, pr.Error))
		}
		rep.Paths = append(rep.Paths, pr)
	}

	w := env.Stdout
	if o.OutFile != "" {
		fw, err := createOut(o.OutFile)
		if err != nil {
			return err
		}
		defer fw.Close()
		w = fw
	}
	if err = porting.Write(w, rep, format, lang, o.All); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if o.OutFile != "" {
		if err := closeOut(w); err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "%s %s\n", finding.T("report written to", "报告已写入").In(lang), o.OutFile)
	}
	if len(failed) > 0 {
		return &ExitError{Code: ExitFailure, Err: errors.New("cannot read " + strings.Join(failed, "; "))}
	}
	switch worst := rep.Worst(); {
	case failOn == "":
	case worst == porting.Blocker:
		return &ExitError{Code: ExitPortingBlockers}
	case worst == porting.Upgrade && failOn == porting.Upgrade:
		return &ExitError{Code: ExitPortingUpgrades}
	}
	return ctx.Err()
}
