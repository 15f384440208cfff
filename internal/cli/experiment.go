package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/experiment"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/report/html"
	"github.com/tuneloop/tuneloop/internal/version"
)

// ExperimentOptions are the flags of `tuneloop experiment`.
type ExperimentOptions struct {
	Plan      string
	Out       string
	Output    string // text, markdown or json on stdout
	Lang      string
	Journal   string
	Catalog   string
	NoCatalog bool
	Argv      []string
}

func newExperimentCmd(env *Env) *cobra.Command {
	o := &ExperimentOptions{}
	cmd := &cobra.Command{
		Use:   "experiment PLAN.yaml [--out DIR]",
		Short: "Try knobs (JVM options, properties, env, limits, CPU/NUMA binding, config files, sysctl/sysfs) in interleaved trials and report the gain with its interval",
		Long: `Run the experiment a plan describes: a service (a start command, or the pid of
a running one for host knobs only), a load, and knobs with candidate values.
Every combination is an arm; the baseline is each knob at its baseline value.

Each trial applies the arm's host knobs through the apply journal, starts the
service with the arm's JVM options and properties in JAVA_TOOL_OPTIONS and its
env variables (nothing of the user's is edited), process limits and a CPU
set or NUMA node set on the start command before it runs (read back from
/proc/PID/limits and /proc/PID/status), configuration files copied into the
trial's folder and passed as the property the knob names (the original only
read, its hash checked after), checks in the running JVM
(VM.flags -all, VM.system_properties) that every option took effect (a flag
on the start command wins over JAVA_TOOL_OPTIONS: such a trial is refused and
the conflicting flag named), warms up, measures with the run flow (one run
folder per trial, in the catalog unless --no-catalog), stops the service and
reverts the host knobs. Arms run in interleaved blocks, a fresh seeded order
per block. From 5 arms on, successive halving drops the worse half after each
round (by the 95% interval against the leader, else by the mean) and gives
the survivors twice the trials. The winner is then re-measured against the
baseline in a fresh interleaved block: that comparison alone is the gain.

The trial log DIR/trials.jsonl is fsync'd per step: run the same command with
the same --out to continue after Ctrl-C or a crash (what a killed run left
applied is reverted first). DIR gets report.html, report.md and report.json.`,
		Example: `  tuneloop experiment plan.yaml --out runs/heap-gc
  tuneloop experiment plan.yaml --out runs/heap-gc -o json   # continue, JSON on stdout`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Plan = args[0]
			return RunExperiment(cmd.Context(), env, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Out, "out", "", "experiment folder (default runs/<time>-experiment); the same folder again continues it")
	f.StringVarP(&o.Output, "output", "o", "text", "output format on stdout: text, markdown or json")
	f.StringVar(&o.Lang, "lang", "", "language: en or zh (default from LANG)")
	f.StringVar(&o.Journal, "journal", "", "journal directory (default /var/lib/tuneloop/journal, or $XDG_STATE_HOME/tuneloop/journal when not root)")
	f.StringVar(&o.Catalog, "catalog", "", "catalog of runs (default $XDG_DATA_HOME/tuneloop/runs.db or ~/.local/share/tuneloop/runs.db)")
	f.BoolVar(&o.NoCatalog, "no-catalog", false, "do not add the trials' run folders to the catalog")
	return cmd
}

// RunExperiment is the whole `experiment` command; tests call it directly.
func RunExperiment(ctx context.Context, env *Env, o *ExperimentOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	format, err := outputFormat(o.Output, report.ExperimentFormats())
	if err != nil {
		return err
	}
	plan, err := experiment.ReadPlanFile(o.Plan)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	out := o.Out
	if out == "" {
		out = filepath.Join("runs", time.Now().UTC().Format("20060102-150405")+"-experiment")
	}
	if abs, err := filepath.Abs(out); err == nil {
		out = abs
	}
	journal := journalOf(env, o.Journal)
	note := func(t finding.Text) { fmt.Fprintln(env.Stderr, finding.Safe(t.In(lang))) }
	runner := &experiment.HostRunner{Plan: plan, Roots: hostfs.Live(), Journal: journal, Owner: "experiment:" + out,
		Catalog: o.Catalog, NoCatalog: o.NoCatalog, Getenv: env.Getenv, Argv: o.Argv, Note: note}
	doc, runErr := experiment.Run(ctx, experiment.Options{Plan: plan, Out: out, Runner: runner, Note: note,
		LeftOpen: func() ([]string, error) { return experiment.RevertLeftOpen(journal, runner.Owner) },
		Tool:     report.Tool{Name: "tuneloop", Version: version.Version}})
	if doc != nil {
		if err := writeExperimentFiles(out, doc, lang); err != nil {
			note(finding.Tf(finding.T("the reports could not be written: %v", "无法写入报告：%v"), err))
		}
		werr := report.WriteExperiment(env.Stdout, doc, format, lang)
		if format == report.Text {
			fmt.Fprintf(env.Stdout, "\n%s %s\n", finding.T("Report:", "报告：").In(lang), finding.SafeLine(filepath.Join(out, "report.html")))
		}
		if werr != nil && runErr == nil {
			runErr = werr
		}
	}
	if runErr != nil {
		if errors.Is(runErr, experiment.ErrStopped) {
			return &ExitError{Code: ExitFailure, Err: finding.Errorf(finding.T("stopped; to continue: tuneloop experiment %s --out %s",
				"已停止；继续运行：tuneloop experiment %s --out %s"), o.Plan, out)}
		}
		return &ExitError{Code: ExitFailure, Err: runErr}
	}
	return nil
}

// writeExperimentFiles writes report.html, report.md and report.json into
// the experiment folder (each whole, or not at all).
func writeExperimentFiles(dir string, doc *report.Experiment, l finding.Lang) error {
	files := []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"report.html", func(b *bytes.Buffer) error { return html.WriteExperiment(b, doc, l) }},
		{"report.md", func(b *bytes.Buffer) error { return report.WriteExperiment(b, doc, report.Markdown, l) }},
		{"report.json", func(b *bytes.Buffer) error { return report.WriteExperiment(b, doc, report.JSON, l) }},
	}
	var errs []error
	for _, f := range files {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			errs = append(errs, err)
			continue
		}
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p+".tmp", b.Bytes(), 0o644); err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, os.Rename(p+".tmp", p))
	}
	return errors.Join(errs...)
}
