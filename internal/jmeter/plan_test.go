package jmeter

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/jmx"
)

// Every public plan of internal/jmx's fixtures, rewritten for a run of 75 s
// with 7 users: read back by the plan reader, each thread group loops until
// the time is up, for that long, with those users; the plan's requests are
// the same.
func TestForRunPublicPlans(t *testing.T) {
	files, _ := filepath.Glob("../jmx/testdata/*.jmx")
	if len(files) < 10 {
		t.Fatalf("fixtures: %v", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out, n, err := ForRun(in, RunPlan{Users: 7, Seconds: 75, BaseDir: "/plans"})
			if err != nil {
				t.Fatal(err)
			}
			before, err := jmx.Read(bytes.NewReader(in), nil)
			if err != nil {
				t.Fatal(err)
			}
			after, err := jmx.Read(bytes.NewReader(out), nil)
			if err != nil {
				t.Fatalf("the rewritten plan does not read back: %v", err)
			}
			if n == 0 || len(after.Groups) != len(before.Groups) {
				t.Fatalf("%d groups rewritten; groups %d before, %d after", n, len(before.Groups), len(after.Groups))
			}
			for i, g := range after.Groups {
				if g.Users != 7 || g.Loops != -1 || g.Duration != 75*time.Second {
					t.Errorf("group %q: users %d loops %d duration %s", g.Name, g.Users, g.Loops, g.Duration)
				}
				if len(g.Requests) != len(before.Groups[i].Requests) {
					t.Errorf("group %q: %d requests, %d before", g.Name, len(g.Requests), len(before.Groups[i].Requests))
				}
			}
			if before.CSV != nil && !filepath.IsAbs(before.CSV.Filename) && bytes.Contains(in, []byte(">"+before.CSV.Filename+"<")) {
				if want := filepath.Join("/plans", before.CSV.Filename); after.CSV == nil || after.CSV.Filename != want {
					t.Errorf("CSV file %+v, want %s", after.CSV, want)
				}
			}
			// Nothing else changed: the lines that differ are thread group
			// properties, file names, or properties inserted after a group's start tag.
			for _, l := range diffLines(string(in), string(out)) {
				if !strings.Contains(l, "ThreadGroup") && !strings.Contains(l, "LoopController") && !strings.Contains(l, "/plans/") {
					t.Errorf("changed line %q", l)
				}
			}
		})
	}
}

// A plan without the scheduler properties gets them; users are kept when
// the run gives none; a disabled group and a setUp group are left alone.
func TestForRunInsertsAndKeeps(t *testing.T) {
	plan := `<jmeterTestPlan><hashTree><TestPlan testclass="TestPlan" testname="p"/><hashTree>
<ThreadGroup testclass="ThreadGroup" testname="a" enabled="true"><stringProp name="ThreadGroup.num_threads">3</stringProp><elementProp name="ThreadGroup.main_controller" elementType="LoopController"><stringProp name="LoopController.loops">5</stringProp></elementProp></ThreadGroup><hashTree/>
<ThreadGroup testclass="ThreadGroup" testname="off" enabled="false"><stringProp name="ThreadGroup.num_threads">2</stringProp><elementProp name="ThreadGroup.main_controller" elementType="LoopController"><stringProp name="LoopController.loops">5</stringProp></elementProp></ThreadGroup><hashTree/>
<SetupThreadGroup testclass="SetupThreadGroup" testname="setup"><elementProp name="ThreadGroup.main_controller" elementType="LoopController"><stringProp name="LoopController.loops">1</stringProp></elementProp></SetupThreadGroup><hashTree/>
</hashTree></hashTree></jmeterTestPlan>`
	out, n, err := ForRun([]byte(plan), RunPlan{Seconds: 42})
	if err != nil || n != 1 {
		t.Fatalf("%d groups, %v", n, err)
	}
	s := string(out)
	for _, want := range []string{
		`<ThreadGroup testclass="ThreadGroup" testname="a" enabled="true"><boolProp name="ThreadGroup.scheduler">true</boolProp><stringProp name="ThreadGroup.duration">42</stringProp><stringProp name="ThreadGroup.num_threads">3</stringProp><elementProp name="ThreadGroup.main_controller" elementType="LoopController"><stringProp name="LoopController.loops">-1</stringProp>`,
		`testname="off" enabled="false"><stringProp name="ThreadGroup.num_threads">2</stringProp><elementProp name="ThreadGroup.main_controller" elementType="LoopController"><stringProp name="LoopController.loops">5</stringProp>`,
		`testname="setup"><elementProp name="ThreadGroup.main_controller" elementType="LoopController"><stringProp name="LoopController.loops">1</stringProp>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s\nin %s", want, s)
		}
	}
}

func TestForRunBadPlan(t *testing.T) {
	_, _, err := ForRun([]byte("<jmeterTestPlan>\n<hashTree>\n<ThreadGroup></hashTree>"), RunPlan{Seconds: 1})
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("want an error naming line 3, got %v", err)
	}
}

func diffLines(a, b string) []string {
	have := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		have[l]++
	}
	var out []string
	for _, l := range strings.Split(b, "\n") {
		if have[l] > 0 {
			have[l]--
			continue
		}
		out = append(out, l)
	}
	return out
}

func FuzzForRun(f *testing.F) {
	for _, name := range []string{"../jmx/testdata/local-plan.jmx", "../jmx/testdata/SimpleTestPlan.jmx"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`<ThreadGroup testclass="ThreadGroup"><stringProp name="ThreadGroup.duration"/></ThreadGroup>`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _, err := ForRun(in, RunPlan{Users: 2, Seconds: 9, BaseDir: "/b"})
		if err != nil {
			return
		}
		// What was well-formed stays well-formed.
		dec := xml.NewDecoder(bytes.NewReader(out))
		dec.Strict = true
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("rewritten plan is not well-formed: %v\n%s", err, out)
			}
		}
	})
}

// --rate: every public plan gets one Constant Throughput Timer, the first
// element of the test plan's own tree (so it paces every sampler), with the
// rate per minute; the rest of the plan reads back the same.
func TestForRunRateTimer(t *testing.T) {
	files, _ := filepath.Glob("../jmx/testdata/*.jmx")
	for _, f := range files {
		in, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := ForRun(in, RunPlan{Seconds: 30, Rate: 12.5})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if n := bytes.Count(out, []byte(`testclass="ConstantThroughputTimer" testname="tuneloop --rate"`)); n != 1 {
			t.Fatalf("%s: %d rate timers", f, n)
		}
		if !bytes.Contains(out, []byte("<value>750</value>")) || !bytes.Contains(out, []byte(`<intProp name="calcMode">3</intProp>`)) {
			t.Errorf("%s: timer %s", f, out[bytes.Index(out, []byte("tuneloop --rate")):][:300])
		}
		// Where: right after the TestPlan element's end and its tree's start.
		d := xml.NewDecoder(bytes.NewReader(out))
		var path []string
		planEnded, next := false, ""
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: the rewritten plan is not XML: %v", f, err)
			}
			switch e := tok.(type) {
			case xml.StartElement:
				if planEnded && next == "" && e.Name.Local != "hashTree" {
					next = e.Name.Local
				}
				path = append(path, e.Name.Local)
			case xml.EndElement:
				path = path[:len(path)-1]
				if e.Name.Local == "TestPlan" {
					planEnded = true
				}
			}
		}
		if next != "ConstantThroughputTimer" {
			t.Errorf("%s: the first element of the test plan's tree is %s", f, next)
		}
		before, _ := jmx.Read(bytes.NewReader(in), nil)
		after, err := jmx.Read(bytes.NewReader(out), nil)
		if err != nil || before == nil || len(after.Groups) != len(before.Groups) {
			t.Errorf("%s: reads back as %v, %v", f, after, err)
		}
	}
	if _, _, err := ForRun([]byte(`<jmeterTestPlan><hashTree/></jmeterTestPlan>`), RunPlan{Rate: 1}); err == nil {
		t.Error("a plan without a TestPlan got a rate timer somewhere")
	}
}
