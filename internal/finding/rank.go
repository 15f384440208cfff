package finding

import "sort"

// statusRank puts what needs action first, then what could not be checked,
// then what passed, then what did not apply.
var statusRank = map[Status]int{Fail: 0, Unavailable: 1, Pass: 2, Skipped: 3}

// Sort ranks findings in place: failures by severity (critical first), then
// by confidence, then unavailable, pass and skipped; ties keep ID order so
// output is stable run to run.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := &fs[i], &fs[j]
		if ra, rb := statusRank[a.Status], statusRank[b.Status]; ra != rb {
			return ra < rb
		}
		if a.Status == Fail && a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		return a.Key() < b.Key()
	})
}

// Counts tallies findings by status, and failures by severity.
type Counts struct {
	Fail        int `json:"fail"`
	Critical    int `json:"critical"`
	Warning     int `json:"warning"`
	Info        int `json:"info"`
	Pass        int `json:"pass"`
	Unavailable int `json:"unavailable"`
	Skipped     int `json:"skipped"`
}

// Count tallies fs.
func Count(fs []Finding) Counts {
	var c Counts
	for i := range fs {
		switch fs[i].Status {
		case Fail:
			c.Fail++
			switch fs[i].Severity {
			case Critical:
				c.Critical++
			case Warning:
				c.Warning++
			default:
				c.Info++
			}
		case Pass:
			c.Pass++
		case Unavailable:
			c.Unavailable++
		case Skipped:
			c.Skipped++
		}
	}
	return c
}

// Worst returns the highest severity among failures, and false when nothing failed.
func Worst(fs []Finding) (Severity, bool) {
	worst, any := Info, false
	for i := range fs {
		if fs[i].Status == Fail {
			if !any || fs[i].Severity > worst {
				worst = fs[i].Severity
			}
			any = true
		}
	}
	return worst, any
}
