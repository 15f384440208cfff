package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/session"
)

// newRunsRebuildCmd is `tuneloop runs rebuild [DIR...]`: the catalog filled
// again from run folders on disk (after it was found damaged, or to pick up
// folders recorded with --no-catalog).
func newRunsRebuildCmd(env *Env, o *RunsOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "rebuild [DIR...]",
		Short: helpText(finding.T("Add back every run and probe folder found in DIR (default ./runs and ./probes) and, after damage, those the old catalog named", "把在 DIR（默认 ./runs 与 ./probes）中找到的每个运行目录和探测目录重新加入运行记录目录；目录损坏后，还会加入旧目录中记载的目录")),
		Long: helpText(finding.T(
			`Scan each DIR (a run or probe folder, or a folder of them; default ./runs
and ./probes) and add every run folder and probe folder found to the
catalog (a probe killed before its end as incomplete, as its probe.json
says). A catalog found damaged ("database disk image is malformed", "file
is not a database") is moved aside as runs.db.corrupt-<time> and rebuilt
automatically; the folders the damaged file still names are added back too.`,
			`扫描每个 DIR（一个运行目录或探测目录，或包含它们的目录；默认 ./runs 与 ./probes），
把找到的每个运行目录和探测目录加入运行记录目录（在结束前被终止的探测按其 probe.json
记为不完整）。发现运行记录目录损坏（"database disk image is malformed"、
"file is not a database"）时，会把它移到 runs.db.corrupt-<时间> 并自动重建；损坏
文件中仍能读出的目录也会重新加入。`,
		)),
		Example: helpText(finding.T(
			`  tuneloop runs rebuild
  tuneloop runs rebuild /data/tuneloop/runs /tmp/from-prod`,
			"  tuneloop runs rebuild\n  tuneloop runs rebuild /data/tuneloop/runs /tmp/from-prod",
		)),
		RunE: func(cmd *cobra.Command, args []string) error { return RunRunsRebuild(cmd.Context(), env, o, args) },
	}
}

// RunRunsRebuild adds the run folders found under dirs to the catalog.
func RunRunsRebuild(ctx context.Context, env *Env, o *RunsOptions, dirs []string) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		dirs = []string{"runs", probe.DefaultRoot}
	}
	c, err := openCatalog(ctx, env, o.Catalog)
	if err != nil {
		return err
	}
	defer c.Close()
	r, err := session.RebuildCatalog(ctx, c, dirs)
	if r != nil {
		for _, d := range r.Added {
			fmt.Fprintln(env.Stdout, report.AddedLine(d, false, lang))
		}
		for _, d := range r.Probes {
			fmt.Fprintln(env.Stdout, report.AddedLine(d, true, lang))
		}
		for _, s := range r.Skipped {
			fmt.Fprintf(env.Stderr, "tuneloop: %s %s\n", finding.T("skipped", "已跳过").In(lang), finding.SafeLine(s))
		}
		fmt.Fprintf(env.Stdout, "%s\n", finding.Tf(finding.T("%d run folders and %d probe folders in the catalog %s", "运行记录目录 %[3]s 中加入了 %[1]d 个运行目录和 %[2]d 个探测目录"),
			len(r.Added), len(r.Probes), finding.SafeLine(c.Path)).In(lang))
	}
	return err
}
