package verdict

import (
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// JMeter's engines: the one whose CPU on this host was saturated is named
// the limit, an engine on another host is listed with its CPU unknown and
// never named; engines with room name nothing.
func TestEngineSaturated(t *testing.T) {
	for _, tc := range []struct {
		name    string
		s       loadgen.Summary
		limit   string // "" = no finding
		unknown bool
	}{
		{"local engine busy", loadgen.Summary{Engine: "jmeter", TPS: 900, ClientCPU: 88,
			Engines: []loadgen.EngineStats{{Name: "local", Samples: 9000, Users: 50, CPUPct: 88, Cores: 2}}}, "local", false},
		{"one of two busy", loadgen.Summary{Engine: "jmeter", TPS: 900, ClientCPU: 80,
			Engines: []loadgen.EngineStats{{Name: "127.0.0.1:24101", Samples: 5000, CPUPct: 75, Cores: 2}, {Name: "10.0.0.9:1099", Samples: 4000, CPUPct: -1}}},
			"127.0.0.1:24101", true},
		{"remote only", loadgen.Summary{Engine: "jmeter", TPS: 900, ClientCPU: 3,
			Engines: []loadgen.EngineStats{{Name: "10.0.0.8:1099", CPUPct: -1}, {Name: "10.0.0.9:1099", CPUPct: -1}}}, "", false},
		{"room", loadgen.Summary{Engine: "jmeter", TPS: 900, ClientCPU: 30,
			Engines: []loadgen.EngineStats{{Name: "127.0.0.1:24101", CPUPct: 20, Cores: 2}, {Name: "127.0.0.1:24102", CPUPct: 10, Cores: 2}}}, "", false},
		{"engines with room, JMeter here busy", loadgen.Summary{Engine: "jmeter", TPS: 900, ClientCPU: 85,
			Engines: []loadgen.EngineStats{{Name: "127.0.0.1:24101", CPUPct: 40, Cores: 2}, {Name: "127.0.0.1:24102", CPUPct: 40, Cores: 2}}}, "JMeter", false},
		// Started over SSH: its CPU reported from its host, its threads
		// short of connections while they fail.
		{"remote engine out of connections", loadgen.Summary{Engine: "jmeter", TPS: 900, ClientCPU: 5,
			Engines: []loadgen.EngineStats{{Name: "10.0.0.8:1099", Samples: 4000, Errors: 900, Users: 200, Connections: 120, ConnCapped: true, CPUPct: 30, Cores: 4},
				{Name: "10.0.0.9:1099", Samples: 5000, Users: 200, Connections: 200, CPUPct: 35, Cores: 4}}}, "10.0.0.8:1099", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			f := generatorSaturated(&Layers{Load: &s})
			// From the load alone (a multi-host run without an app host):
			// the same finding.
			if g := EngineLimit(&s); (g == nil) != (f == nil) || (g != nil && g.Title != f.Title) {
				t.Errorf("EngineLimit %+v, the run's %+v", g, f)
			}
			if tc.limit == "" {
				if f != nil {
					t.Fatalf("want none, got %s", f.Title.EN)
				}
				return
			}
			if f == nil || f.ID != IDGeneratorSaturated {
				t.Fatalf("want the engine named, got %+v", f)
			}
			if !strings.Contains(f.Title.EN, "("+tc.limit+")") || !strings.Contains(f.Title.ZH, "（"+tc.limit+"）") {
				t.Errorf("title %q / %q does not name %s", f.Title.EN, f.Title.ZH, tc.limit)
			}
			if got := strings.Contains(f.Observed.EN, "CPU unknown (not on this host)") && strings.Contains(f.Observed.ZH, "CPU 未知"); got != tc.unknown {
				t.Errorf("unknown CPU said %v: %s", got, f.Observed.EN)
			}
		})
	}
}

// A built-in load names no engine from the load alone, however busy the
// generator was: that is the host's verdict to give.
func TestEngineLimitBuiltin(t *testing.T) {
	if f := EngineLimit(&loadgen.Summary{TPS: 900, ClientCPU: 95}); f != nil {
		t.Errorf("built-in load: %s", f.Title.EN)
	}
	if f := EngineLimit(nil); f != nil {
		t.Errorf("no load: %s", f.Title.EN)
	}
}
