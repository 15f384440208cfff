package loadgen

import (
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Defaults when neither the command line nor the scenario says.
const (
	DefaultDuration = 10 * time.Second
	DefaultUsers    = 10
)

// Overrides are what the command line sets over a scenario or plan: zero
// means "not given", so the scenario's value stays.
type Overrides struct {
	Headers     []string // "Name: value", added to every request
	Users       int      // the closed model
	Rate        float64  // the open model
	Connections int
	Duration    time.Duration
	Requests    int64
	RampUp      time.Duration
	WarmUp      time.Duration
	Think       time.Duration
	Timeout     time.Duration
	NoKeepAlive bool
	Insecure    bool
	HTTP2       bool
}

// Apply sets o over cfg and fills the defaults (DefaultUsers, a
// DefaultDuration when nothing else bounds the load). A combination that
// cannot be run (both models, -c over several thread groups, a negative
// count) is refused with what to give instead.
func (o Overrides) Apply(cfg *Config) error {
	for _, h := range o.Headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return finding.Errorf(finding.T("--header %q: want 'Name: value'", "--header %q：格式应为 'Name: value'"), h)
		}
		for i := range cfg.Requests {
			cfg.Requests[i].Headers = append(cfg.Requests[i].Headers,
				Header{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
		}
	}
	if o.Users < 0 || o.Rate < 0 || o.Connections < 0 || o.Requests < 0 || o.Duration < 0 || o.RampUp < 0 ||
		o.WarmUp < 0 || o.Think < 0 || o.Timeout < 0 {
		return finding.Errorf(finding.T("counts and durations must not be negative", "数量和时长不能为负数"))
	}
	switch {
	case o.Users > 0 && o.Rate > 0:
		return finding.Errorf(finding.T("-c (closed model) and --rate (open model) exclude each other", "-c（闭合模型）与 --rate（开放模型）不能同时使用"))
	case o.Users > 0 && len(cfg.Groups) > 1:
		return finding.Errorf(finding.T("-c with a plan of several thread groups: set each group's users in the plan (e.g. with ${__P(users)} and -J)",
			"计划有多个线程组时不能使用 -c：请在计划中设置各线程组的用户数（例如用 ${__P(users)} 和 -J）"))
	case o.Users > 0:
		cfg.Users, cfg.Rate = o.Users, 0
		if len(cfg.Groups) == 1 {
			cfg.Groups[0].Users = o.Users
			if cfg.BoundedByLoops() {
				cfg.MaxRequests = 0 // the plan's count was for its users; the loops bound it
			}
		}
	case o.Rate > 0:
		// The open model sends on a schedule, not user by user: requests
		// are picked by weight (the plan's order gives their shares).
		cfg.Rate, cfg.Users = o.Rate, 0
		cfg.Sequence, cfg.Loops, cfg.Groups = false, 0, nil
	}
	if cfg.Users == 0 && cfg.Rate == 0 {
		cfg.Users = DefaultUsers
	}
	if o.Think > 0 && cfg.Rate > 0 {
		return finding.Errorf(finding.T("--think applies to the closed model (-c), not to --rate", "--think 只适用于闭合模型（-c），不适用于 --rate"))
	}
	setPositive(&cfg.Connections, o.Connections)
	setPositive(&cfg.Duration, o.Duration)
	setPositive(&cfg.MaxRequests, o.Requests)
	setPositive(&cfg.RampUp, o.RampUp)
	setPositive(&cfg.WarmUp, o.WarmUp)
	setPositive(&cfg.Think, o.Think)
	setPositive(&cfg.Timeout, o.Timeout)
	if cfg.Duration == 0 && cfg.MaxRequests == 0 && !cfg.BoundedByLoops() {
		cfg.Duration = DefaultDuration
	}
	cfg.DisableKeepAlive = cfg.DisableKeepAlive || o.NoKeepAlive
	cfg.Insecure = cfg.Insecure || o.Insecure
	cfg.HTTP2 = cfg.HTTP2 || o.HTTP2
	return nil
}

func setPositive[T int | int64 | time.Duration](dst *T, v T) {
	if v > 0 {
		*dst = v
	}
}
