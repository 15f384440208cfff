package rules

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/sysinfo"
)

// privateMarkers are the shapes of the team's own notes (research/*.md,
// seeds/*): a user has neither, so no text or reference may point at them.
var privateMarkers = []string{"research/", "anchors-", "seeds/", ".md #", "the seeds", "practice documents"}

func privateMarker(s string) string {
	l := strings.ToLower(s)
	for _, m := range privateMarkers {
		if strings.Contains(l, m) {
			return m
		}
	}
	return ""
}

func checkPublicText(t *testing.T, where, s string) {
	t.Helper()
	if m := privateMarker(s); m != "" {
		i := strings.Index(strings.ToLower(s), m)
		t.Errorf("%s cites a private note: ...%s...", where, s[max(0, i-60):min(len(s), i+60)])
	}
}

// Every text a rule carries and every reference it lists, in both languages.
func TestRulesCitePublicSourcesOnly(t *testing.T) {
	for _, r := range All() {
		for name, tx := range map[string]finding.Text{"title": r.Title, "checks": r.Checks, "why": r.Why, "risk": r.Risk, "workload": r.Workload} {
			checkPublicText(t, r.ID+" "+name+" (en)", tx.EN)
			checkPublicText(t, r.ID+" "+name+" (zh)", tx.ZH)
		}
		for _, ref := range r.References {
			checkPublicText(t, r.ID+" reference", ref)
		}
	}
}

// The findings as a user receives them (observed texts, fixes and notes are
// built at evaluation time), over every host the tests know and every profile.
func TestFindingsCitePublicSourcesOnly(t *testing.T) {
	hosts := map[string]*sysinfo.Facts{"zero": {}, "healthy": healthyHost(), "kunpeng2s4n": kunpeng2s4n(), "firecracker": firecrackerVM()}
	for _, name := range []string{"build-vm-amd64", "centos7-3.10-cgv1", "container-quota", "kunpeng920-2s4n", "empty", "garbage"} {
		hosts[name] = fixture(t, name)
	}
	// A healthy host with values the rules fail on, so fail-path texts are seen too.
	bad := healthyHost()
	setSysctl(bad, "vm.min_free_kbytes", 1024)
	setSysctl(bad, "vm.swappiness", 60)
	setSysctl(bad, "net.core.somaxconn", 128)
	setArgs(bad, "BOOT_IMAGE=/vmlinuz mitigations=off nohz=off selinux=0 audit=0 transparent_hugepage=always")
	hosts["bad"] = bad
	n := 0
	for host, f := range hosts {
		for _, p := range Profiles {
			for _, x := range Evaluate(All(), f, p) {
				b, err := json.Marshal(x)
				if err != nil {
					t.Fatal(err)
				}
				// JSON escapes none of the markers' characters.
				checkPublicText(t, host+"/"+string(p)+" "+x.Key(), string(b))
				n++
			}
		}
	}
	if n < len(All())*len(hosts) {
		t.Fatalf("only %d findings evaluated", n)
	}
}

// Every string literal in the package's code: texts built in a branch no
// fixture reaches are covered too. Comments may name the notes; output not.
func TestSourceLiteralsCitePublicSourcesOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, fn := range files {
		if strings.HasSuffix(fn, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, fn, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				s, err := strconv.Unquote(lit.Value)
				if err == nil {
					seen++
					checkPublicText(t, fset.Position(lit.Pos()).String(), s)
				}
			}
			return true
		})
	}
	if seen < 1000 {
		t.Fatalf("only %d string literals read: is the glob in the wrong directory?", seen)
	}
}

func TestPrivateMarker(t *testing.T) {
	for s, want := range map[string]string{
		"research/anchors-host-tuning.md #23":               "research/",
		"seeds/003 (+5.8%)":                                 "seeds/",
		"see anchors-go-style":                              "anchors-",
		"notes.md #4":                                       ".md #",
		"kernel Documentation/admin-guide/mm/transhuge.rst": "",
		"eclipse-openj9/openj9 #6156":                       "",
	} {
		if got := privateMarker(s); got != want {
			t.Errorf("privateMarker(%q) = %q, want %q", s, got, want)
		}
	}
}
