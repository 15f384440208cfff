package session

import (
	"context"
	"strings"

	"github.com/tuneloop/tuneloop/internal/compare"
	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/probe"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/runfolder"
	"github.com/tuneloop/tuneloop/internal/runfolder/catalog"
	"github.com/tuneloop/tuneloop/internal/stats"
)

// RunList is the catalog's runs, newest first, and how many probes it
// holds besides (`tuneloop runs`).
func RunList(ctx context.Context, c *catalog.Catalog) (*report.RunList, error) {
	es, err := c.List(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := c.ListProbes(ctx)
	if err != nil {
		return nil, err
	}
	return &report.RunList{Catalog: c.Path, Runs: es, Probes: len(ps)}, nil
}

// ProbeList is the catalog's probes, newest first (`runs --probes`).
func ProbeList(ctx context.Context, c *catalog.Catalog) (*report.ProbeList, error) {
	ps, err := c.ListProbes(ctx)
	if err != nil {
		return nil, err
	}
	return &report.ProbeList{Catalog: c.Path, Probes: ps}, nil
}

// trendP is the significance of a change point.
const trendP = 0.05

// Trend is TPS and p99 over the runs of each service and scenario (only
// service when not ""), with their change points (`runs trend`). Runs
// catalogued before the history get their headline from their
// report.json first.
func Trend(ctx context.Context, c *catalog.Catalog, service string) (*report.Trend, error) {
	missing, err := c.MissingHeadline(ctx)
	if err != nil {
		return nil, err
	}
	for _, d := range missing {
		if h, ok := headlineOf(d); ok {
			if err := c.PutHeadline(ctx, d, h); err != nil {
				return nil, err
			}
		}
	}
	pts, err := c.History(ctx, service)
	if err != nil {
		return nil, err
	}
	t := &report.Trend{Catalog: c.Path}
	for _, p := range pts {
		if n := len(t.Series); n == 0 || t.Series[n-1].Service != p.Service || t.Series[n-1].Scenario != p.Scenario {
			t.Series = append(t.Series, report.TrendSeries{Service: p.Service, Scenario: p.Scenario})
		}
		s := &t.Series[len(t.Series)-1]
		s.Runs = append(s.Runs, p)
	}
	for i := range t.Series {
		s := &t.Series[i]
		tps, p99 := make([]float64, len(s.Runs)), make([]float64, len(s.Runs))
		for j, r := range s.Runs {
			tps[j], p99[j] = r.TPS, r.P99MS
		}
		s.TPSCP, s.P99CP = stats.ChangePoints(tps, trendP), stats.ChangePoints(p99, trendP)
		if s.TPSCP == nil {
			s.TPSCP = []stats.ChangePoint{}
		}
		if s.P99CP == nil {
			s.P99CP = []stats.ChangePoint{}
		}
	}
	return t, nil
}

// AddToCatalog puts the folder dir in c: a probe folder as a probe, a run
// folder with its saved findings and, when a report.json is there, its
// service and headline numbers. isProbe says which it was.
func AddToCatalog(ctx context.Context, c *catalog.Catalog, dir string) (isProbe bool, err error) {
	if !runfolder.IsRunDir(dir) && probe.IsDir(dir) {
		_, err := c.AddProbe(ctx, dir)
		return true, err
	}
	f, err := runfolder.Open(dir)
	if err != nil {
		return false, err
	}
	fs, err := f.Findings()
	if err != nil {
		return false, err
	}
	if err := c.Put(ctx, CatalogEntry(f, fs)); err != nil {
		return false, err
	}
	if h, ok := headlineOf(dir); ok {
		if err := c.PutHeadline(ctx, dir, h); err != nil {
			return false, err
		}
	}
	return false, nil
}

// headlineOf reads a run folder's report.json for the history.
func headlineOf(dir string) (catalog.Headline, bool) {
	p, err := compare.Load(dir)
	if err != nil || p.Load == nil || p.Load.TPS <= 0 {
		return catalog.Headline{}, false
	}
	return catalog.Headline{Service: compare.Service(p), Scenario: p.Load.Model, TPS: p.Load.TPS, P99MS: p.Load.P99MS}, true
}

// OpenCatalog opens the catalog at path; one found damaged is moved aside
// and rebuilt from the run folders under ./runs, which recovered hears.
func OpenCatalog(ctx context.Context, path string, recovered func(finding.Text)) (*catalog.Catalog, error) {
	c, err := catalog.Open(ctx, path)
	if err == nil && c.Recovered != nil {
		r, _ := RebuildCatalog(ctx, c, []string{"runs"})
		if recovered != nil {
			recovered(CatalogRecovered(c, r))
		}
	}
	return c, err
}

// AddRuns puts each folder of dirs in c (AddToCatalog), in order, telling
// added of each; the first that cannot be added ends it with its error.
func AddRuns(ctx context.Context, c *catalog.Catalog, dirs []string, added func(dir string, isProbe bool)) error {
	for _, d := range dirs {
		isProbe, err := AddToCatalog(ctx, c, d)
		if err != nil {
			return err
		}
		added(d, isProbe)
	}
	return nil
}

// RemoveRuns drops each folder of dirs from c, telling removed of each; a
// folder c does not hold is an error naming every such folder, once the
// others are removed.
func RemoveRuns(ctx context.Context, c *catalog.Catalog, dirs []string, removed func(dir string)) error {
	var missing []string
	for _, d := range dirs {
		ok, err := c.RemoveDir(ctx, d)
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, finding.SafeLine(d))
			continue
		}
		removed(d)
	}
	if len(missing) > 0 {
		return finding.Errorf(finding.T("not in the catalog: %s", "不在运行记录目录中：%s"), strings.Join(missing, ", "))
	}
	return nil
}
