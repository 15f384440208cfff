package loadgen

import (
	"strings"
	"testing"
	"time"
)

// What the command line sets over a scenario: the defaults, the model
// switch, and each refusal with its reason.
func TestOverridesApply(t *testing.T) {
	one := func() Config { return Config{Requests: []Request{{URL: "http://127.0.0.1/"}}} }
	cfg := one()
	if err := (Overrides{}).Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Users != DefaultUsers || cfg.Duration != DefaultDuration {
		t.Errorf("defaults: users %d duration %s", cfg.Users, cfg.Duration)
	}
	cfg = one()
	cfg.Users, cfg.Sequence, cfg.Loops = 5, true, 3
	if err := (Overrides{Rate: 50, Requests: 100, Headers: []string{"X-A: 1"}}).Apply(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Rate != 50 || cfg.Users != 0 || cfg.Sequence || cfg.Loops != 0 || cfg.MaxRequests != 100 || cfg.Duration != 0 {
		t.Errorf("--rate over a closed scenario: %+v", cfg)
	}
	if h := cfg.Requests[0].Headers; len(h) != 1 || h[0].Name != "X-A" || h[0].Value != "1" {
		t.Errorf("header: %+v", h)
	}
	for _, c := range []struct {
		o    Overrides
		want string
	}{
		{Overrides{Users: 2, Rate: 5}, "exclude each other"},
		{Overrides{Users: -1}, "must not be negative"},
		{Overrides{Timeout: -time.Second}, "must not be negative"},
		{Overrides{Rate: 5, Think: time.Second}, "--think applies to the closed model"},
		{Overrides{Headers: []string{"no colon"}}, "want 'Name: value'"},
	} {
		cfg := one()
		err := c.o.Apply(&cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.o, err, c.want)
		}
	}
	cfg = Config{Groups: []UserGroup{{Users: 1}, {Users: 2}}}
	if err := (Overrides{Users: 3}).Apply(&cfg); err == nil || !strings.Contains(err.Error(), "several thread groups") {
		t.Errorf("-c over two groups: %v", err)
	}
}
