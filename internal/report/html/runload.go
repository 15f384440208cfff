package html

// The run page's load test sections: when the run folder kept the load's
// detail (raw/load-detail.json), what `tuneloop load --html` draws (over
// time with p90, per label, errors and codes over time, the latency
// distribution, the open model's send lag) follows the run's own load
// charts, which stay on the run's time axis beside CPU, threads and GC.

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// runLoadSection is the load page's sections and notes for the run page
// ("" without a detail, or if they could not be drawn: the run page is
// still written).
func runLoadSection(p *report.RunPage) template.HTML {
	if p.LoadDetail == nil || p.LoadDetail.Summary == nil {
		return ""
	}
	lp := *p.LoadDetail
	lp.Lang = pageLang(p.Lang)
	var b bytes.Buffer
	for _, n := range lp.Notes {
		fmt.Fprintf(&b, "<p class=\"notice\">%s</p>\n", template.HTMLEscapeString(finding.SafeOneLine(n.In(lp.Lang))))
	}
	if err := WriteLoadSection(&b, &lp); err != nil {
		return ""
	}
	return template.HTML(b.String())
}

// runLoadNav is the navigation's name of the load sections.
func runLoadNav(l finding.Lang) string {
	return finding.T("Load test", "压测详情").In(l)
}
