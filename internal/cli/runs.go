package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/run"
	"github.com/tuneloop/tuneloop/internal/run/catalog"
)

// RunsOptions are the flags of `tuneloop runs`.
type RunsOptions struct {
	Catalog string
	Output  string // text or json
	Lang    string
}

func newRunsCmd(env *Env) *cobra.Command {
	o := &RunsOptions{}
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List recorded runs (the catalog), or add and remove run folders",
		Long: `List the runs 'tuneloop record' saved, newest first, from the catalog
($XDG_DATA_HOME/tuneloop/runs.db or ~/.local/share/tuneloop/runs.db; --catalog
to use another). A run folder copied from another machine is added with
'tuneloop runs add DIR'. The catalog is an index only: each run folder is
complete on its own ('tuneloop analyze DIR').`,
		Example: `  tuneloop runs
  tuneloop runs --output json
  tuneloop runs add /tmp/from-prod/20261121-090001-kp920-app01
  tuneloop runs rm runs/20261121-090001-kp920-app01`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return RunRuns(cmd.Context(), env, o) },
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&o.Catalog, "catalog", "", "catalog of runs (default $XDG_DATA_HOME/tuneloop/runs.db or ~/.local/share/tuneloop/runs.db)")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	cmd.Flags().StringVar(&o.Lang, "lang", "", "language: en or zh (default from LANG)")
	cmd.AddCommand(&cobra.Command{
		Use:   "add DIR...",
		Short: "Add run folders to the catalog (e.g. copied from another machine)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return RunRunsAdd(cmd.Context(), env, o.Catalog, args)
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "rm DIR...",
		Short: "Remove run folders from the catalog (the folders are left alone)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return RunRunsRemove(cmd.Context(), env, o.Catalog, args)
		},
	})
	return cmd
}

// RunRuns lists the catalog.
func RunRuns(ctx context.Context, env *Env, o *RunsOptions) error {
	lang, err := langOpt(env, o.Lang)
	if err != nil {
		return err
	}
	if o.Output != "text" && o.Output != "json" {
		return usageErr(finding.T("--output: unknown format %q (want text or json)", "--output：未知格式 %q（应为 text 或 json）"), o.Output)
	}
	c, err := openCatalog(ctx, env, o.Catalog)
	if err != nil {
		return err
	}
	defer c.Close()
	es, err := c.List(ctx)
	if err != nil {
		return err
	}
	if o.Output == "json" {
		if es == nil {
			es = []catalog.Entry{}
		}
		return report.WriteJSON(env.Stdout, es)
	}
	if len(es) == 0 {
		fmt.Fprintf(env.Stdout, "%s (%s)\n", finding.T("No runs recorded yet.", "还没有运行记录。").In(lang), c.Path)
		return nil
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
	hdr := finding.T("ID\tSTART (UTC)\tLENGTH\tSTATUS\tTARGET\tFINDINGS\tTOP\tFOLDER", "ID\t开始 (UTC)\t时长\t状态\t目标\t诊断数\t首要\t目录").In(lang)
	fmt.Fprintln(tw, hdr)
	for _, e := range es {
		length := "-"
		if !e.End.IsZero() {
			length = clock(e.End.Sub(e.Start))
		}
		status := string(e.Status)
		if e.Status == run.Recording {
			status += finding.T(" (incomplete)", "（不完整）").In(lang)
		}
		dir := e.Dir
		if e.Missing {
			dir += finding.T(" (missing)", "（已不存在）").In(lang)
		}
		target := "-"
		if e.PID != 0 {
			target = fmt.Sprintf("%s/%d", e.Comm, e.PID)
		}
		top := e.Top
		if top == "" {
			top = "-"
		}
		// The catalog's strings come from manifests (the target's comm, the
		// ID): one line each, harmless on a terminal, no tab to break columns.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", finding.SafeLine(e.ID), e.Start.UTC().Format("2006-01-02 15:04:05"), length,
			finding.SafeLine(status), finding.SafeLine(target), e.Findings, finding.SafeLine(top), finding.SafeLine(dir))
	}
	return tw.Flush()
}

// RunRunsAdd adds run folders to the catalog, with their saved findings.
func RunRunsAdd(ctx context.Context, env *Env, catPath string, dirs []string) error {
	c, err := openCatalog(ctx, env, catPath)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, d := range dirs {
		f, err := run.Open(d)
		if err != nil {
			return err
		}
		fs, err := f.Findings()
		if err != nil {
			return err
		}
		if err := c.Put(ctx, entryOf(f, fs)); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s %s\n", finding.T("added", "已添加").In(env.Lang()), finding.SafeLine(d))
	}
	return nil
}

// RunRunsRemove drops run folders from the catalog.
func RunRunsRemove(ctx context.Context, env *Env, catPath string, dirs []string) error {
	c, err := openCatalog(ctx, env, catPath)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, d := range dirs {
		if err := c.Remove(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

func openCatalog(ctx context.Context, env *Env, flag string) (*catalog.Catalog, error) {
	p, err := catalogPath(env, flag)
	if err != nil {
		return nil, err
	}
	return catalog.Open(ctx, p)
}
