package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/jmx"
	"github.com/tuneloop/tuneloop/internal/jtl"
	"github.com/tuneloop/tuneloop/internal/loadgen"
	"github.com/tuneloop/tuneloop/internal/report"
	"github.com/tuneloop/tuneloop/internal/report/html"
	"github.com/tuneloop/tuneloop/internal/version"
)

// LoadFiles are what `tuneloop load` writes besides its answer: every
// sample (JTL, JMeter's CSV), the load page (HTML, in Lang) and the
// summary's JSON (Save); "" writes none.
type LoadFiles struct {
	JTL, HTML, Save string
	Lang            finding.Lang
}

// Load runs the built-in generator with cfg, every sample to f.JTL and,
// with f.HTML, to a recorder that gives the page its series; onSecond (nil:
// none) sees the progress once a second. A JTL of a load that could not
// start is removed. The error of a load that could not start is a
// UsageError unless the target failed or ctx ended.
func Load(ctx context.Context, cfg loadgen.Config, f LoadFiles, onSecond func(loadgen.Progress)) (*loadgen.Summary, *report.LoadRecorder, error) {
	var jw *loadgen.JTLWriter
	var jtlFile *os.File
	if f.JTL != "" {
		var err error
		if jtlFile, err = os.Create(f.JTL); err != nil {
			return nil, nil, err
		}
		defer jtlFile.Close()
		jw = loadgen.NewJTLWriter(jtlFile)
		cfg.Sink = jw
	}
	var rec *report.LoadRecorder
	if f.HTML != "" {
		rec = report.NewLoadRecorder()
		cfg.Sink = loadgen.Tee(cfg.Sink, rec)
	}
	cfg.OnSecond = onSecond
	sum, err := loadgen.Generate(ctx, cfg)
	if err != nil {
		if jtlFile != nil {
			jtlFile.Close()
			os.Remove(f.JTL)
		}
		if ctx.Err() != nil {
			return nil, nil, finding.Errorf(finding.T("interrupted before the load started", "负载开始前被中断"))
		}
		var te *loadgen.TargetError
		if errors.As(err, &te) {
			return nil, nil, err
		}
		return nil, nil, usageErr(finding.T("%v", "%v"), err)
	}
	if jw != nil {
		if err := jw.Flush(); err != nil {
			return nil, nil, fmt.Errorf("writing %s: %w", f.JTL, err)
		}
	}
	return sum, rec, nil
}

// SaveLoad writes the summary's --save JSON and --html page (rec, when the
// samples were recorded, gives the page its series).
func SaveLoad(s *loadgen.Summary, rec *report.LoadRecorder, f LoadFiles) error {
	if f.Save != "" {
		var b bytes.Buffer
		err := report.WriteJSON(&b, s)
		if err == nil {
			err = os.WriteFile(f.Save, b.Bytes(), 0o644)
		}
		if err != nil {
			return fmt.Errorf("--save: %w", err)
		}
	}
	if f.HTML != "" {
		page := report.NewLoadPage(s, rec, f.Lang, report.Tool{Name: "tuneloop", Version: version.Version})
		var b bytes.Buffer
		err := html.WriteLoad(&b, page)
		if err == nil {
			err = os.WriteFile(f.HTML, b.Bytes(), 0o644)
		}
		if err != nil {
			return fmt.Errorf("--html: %w", err)
		}
	}
	return nil
}

// ImportJTL summarises a JTL file (JMeter's CSV or XML results) as a load;
// each line skipped is said to skipped ("FILE:LINE: skipped: why").
func ImportJTL(path string, skipped func(string)) (*loadgen.Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res, err := jtl.Import(f)
	if res != nil {
		for _, p := range res.Problems {
			skipped(fmt.Sprintf("%s:%d: skipped: %s", path, p.Line, p.Msg))
		}
		if extra := res.Skipped - int64(len(res.Problems)); extra > 0 {
			skipped(fmt.Sprintf("%s: %d more lines skipped", path, extra))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	res.Summary.Target = path
	return res.Summary, nil
}

// JMXConfig reads a JMeter plan into a load config for the built-in
// generator. Unsupported elements refuse the plan (a workload silently
// different from the plan would be measured as if it were the same) unless
// skip; notes say where the run differs from JMeter's. Both are said to say
// in lang, a line each.
func JMXConfig(path string, props map[string]string, skip bool, lang finding.Lang, say func(string)) (loadgen.Config, error) {
	plan, cfg, notes, err := jmx.Load(path, props)
	if plan != nil && len(plan.Unsupported) > 0 {
		head := finding.T("%s: %d element(s) of the plan cannot be run by tuneloop:", "%s：计划中有 %d 个元素 tuneloop 无法执行：")
		if skip {
			head = finding.T("%s: skipping %d element(s) tuneloop cannot run:", "%s：跳过 %d 个 tuneloop 无法执行的元素：")
		}
		say(finding.Tf(head, finding.SafeLine(path), len(plan.Unsupported)).In(lang))
		for _, it := range plan.Unsupported {
			say(fmt.Sprintf("  %s: %s", it.String(), finding.SafeLine(it.Why.In(lang))))
		}
		if !skip && err == nil {
			return cfg, usageErr(finding.T("the plan was not run: run it with JMeter itself (--engine jmeter, or --engine auto), remove those elements, or give --jmx-skip-unsupported to run it without them",
				"计划未执行：请用 JMeter 本身执行（--engine jmeter 或 --engine auto），删除这些元素，或使用 --jmx-skip-unsupported 在没有它们的情况下执行"))
		}
	}
	if err != nil {
		return cfg, usageErr(finding.T("--jmx: %s", "--jmx：%s"), finding.SafeLine(err.Error()))
	}
	for _, n := range notes {
		say(fmt.Sprintf("%s %s", finding.T("note:", "注意：").In(lang), finding.SafeLine(n.In(lang))))
	}
	return cfg, nil
}
