// The plan as `tuneloop run` hands it to JMeter. Sample of what changes in a
// standard thread group (the rest of the file is kept byte for byte):
//
//	<ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="Users" enabled="true">
//	  <elementProp name="ThreadGroup.main_controller" elementType="LoopController" ...>
//	    <stringProp name="LoopController.loops">20</stringProp>          -> -1 (until the time is up)
//	  </elementProp>
//	  <stringProp name="ThreadGroup.num_threads">5</stringProp>          -> the run's users, when given
//	  <boolProp name="ThreadGroup.scheduler">false</boolProp>            -> true
//	  <stringProp name="ThreadGroup.duration"></stringProp>              -> the run's time, in seconds
//
// and a relative file name (a CSV data set's, a script file's) made
// absolute, since JMeter resolves it against the plan's folder and the
// copy lives in another one.

package jmeter

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// RunPlan says how ForRun changes a plan.
type RunPlan struct {
	Users   int // > 0: every standard thread group runs this many threads
	Seconds int // > 0: every standard thread group runs this long, looping
	// BaseDir, when set, makes relative file names absolute against it
	// (the original plan's folder); empty for remote engines, which
	// resolve file names on their own hosts.
	BaseDir string
	// Rate > 0: a Constant Throughput Timer at the plan's top paces every
	// sampler of the plan to this many samples per second in all (its
	// threads share one schedule: calcMode 3); with remote engines, each
	// runs the plan, so the caller gives each its share.
	Rate float64
}

// RateTimer is the timer ForRun inserts for RunPlan.Rate.
func RateTimer(perSecond float64) string {
	return `<ConstantThroughputTimer guiclass="TestBeanGUI" testclass="ConstantThroughputTimer" testname="tuneloop --rate" enabled="true">` +
		`<intProp name="calcMode">3</intProp><doubleProp><name>throughput</name><value>` +
		strconv.FormatFloat(perSecond*60, 'f', -1, 64) + `</value><savedValue>0.0</savedValue></doubleProp></ConstantThroughputTimer><hashTree/>`
}

// maxPlanBytes bounds a plan read for rewriting.
const maxPlanBytes = 64 << 20

// fileProps are properties that name a file JMeter reads relative to the plan.
var fileProps = map[string]bool{"filename": true, "BeanShellSampler.filename": true, "IncludeController.includepath": true, "HTTPFileArg.path": true}

type patch struct {
	from, to int // byte range replaced (to == from: an insertion)
	text     string
}

// ForRun rewrites plan as rp says and returns the new plan and the number
// of thread groups changed. Only the standard Thread Group is changed
// (setUp/tearDown groups and plugins' groups run as the plan says).
func ForRun(plan []byte, rp RunPlan) ([]byte, int, error) {
	if len(plan) > maxPlanBytes {
		return nil, 0, fmt.Errorf("the plan is larger than %d MiB", maxPlanBytes>>20)
	}
	dec := xml.NewDecoder(bytes.NewReader(plan))
	dec.Strict = true
	type frame struct {
		name, class, prop string
		start             int // offset of the start tag
		afterStart        int // offset after it
		tg                *group
	}
	var stack []frame
	var patches []patch
	groups := 0
	// The rate timer goes first into the hashTree after the TestPlan.
	afterPlan, rated := false, false
	for {
		off := int(dec.InputOffset())
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line, _ := dec.InputPos()
			return nil, 0, fmt.Errorf("line %d: %w", line, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			f := frame{name: t.Name.Local, start: off, afterStart: int(dec.InputOffset())}
			for _, a := range t.Attr {
				switch a.Name.Local {
				case "testclass":
					f.class = a.Value
				case "name":
					f.prop = a.Value
				case "enabled":
					if a.Value == "false" {
						f.class = "-disabled-"
					}
				}
			}
			if f.class == "" && f.prop == "" {
				f.class = t.Name.Local // older plans: the tag is the class
			}
			if f.class == "ThreadGroup" && f.name == "ThreadGroup" {
				f.tg = &group{}
			}
			if afterPlan && t.Name.Local == "hashTree" && rp.Rate > 0 && !rated {
				rated = true
				if bytes.HasSuffix(plan[off:f.afterStart], []byte("/>")) {
					patches = append(patches, patch{off, f.afterStart, "<hashTree>" + RateTimer(rp.Rate) + "</hashTree>"})
				} else {
					patches = append(patches, patch{f.afterStart, f.afterStart, RateTimer(rp.Rate)})
				}
			}
			afterPlan = false
			stack = append(stack, f)
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, 0, errors.New("unbalanced plan")
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			end := int(dec.InputOffset())
			if f.name == "TestPlan" {
				afterPlan = true
			}
			if f.tg != nil {
				groups++
				patches = append(patches, f.tg.patches(f.afterStart, rp)...)
				continue
			}
			if !strings.HasSuffix(f.name, "Prop") || len(stack) == 0 {
				continue
			}
			parent := stack[len(stack)-1]
			text := string(plan[f.afterStart:max(f.afterStart, end-len("</"+f.name+">"))])
			if bytes.HasSuffix(plan[f.start:f.afterStart], []byte("/>")) {
				text = ""
			}
			switch {
			case parent.tg != nil:
				parent.tg.prop(f.prop, f.start, end)
			case parent.prop == "ThreadGroup.main_controller" && len(stack) >= 2 && stack[len(stack)-2].tg != nil &&
				(f.prop == "LoopController.loops" || f.prop == "LoopController.continue_forever"):
				stack[len(stack)-2].tg.prop(f.prop, f.start, end)
			case fileProps[f.prop] && rp.BaseDir != "" && f.name == "stringProp":
				v := strings.TrimSpace(unescape(text))
				if v != "" && !filepath.IsAbs(v) && !strings.Contains(v, "${") {
					patches = append(patches, patch{f.start, end, `<stringProp name="` + esc(f.prop) + `">` + esc(filepath.Join(rp.BaseDir, v)) + `</stringProp>`})
				}
			}
		}
	}
	if rp.Rate > 0 && !rated {
		return nil, 0, errors.New("no TestPlan element followed by its hashTree: nowhere to put the --rate timer")
	}
	sort.SliceStable(patches, func(i, j int) bool { return patches[i].from < patches[j].from })
	var out bytes.Buffer
	at := 0
	for _, p := range patches {
		if p.from < at {
			continue // nested in one already replaced
		}
		out.Write(plan[at:p.from])
		out.WriteString(p.text)
		at = p.to
	}
	out.Write(plan[at:])
	return out.Bytes(), groups, nil
}

// group is where a thread group's properties are, by name.
type group struct{ at map[string][2]int }

func (g *group) prop(name string, from, to int) {
	if g.at == nil {
		g.at = map[string][2]int{}
	}
	g.at[name] = [2]int{from, to}
}

func (g *group) patches(afterStart int, rp RunPlan) []patch {
	var set []struct{ name, tag, value string }
	if rp.Seconds > 0 {
		set = append(set, []struct{ name, tag, value string }{
			{"ThreadGroup.scheduler", "boolProp", "true"},
			{"ThreadGroup.duration", "stringProp", strconv.Itoa(rp.Seconds)},
			{"LoopController.loops", "stringProp", "-1"},
			{"LoopController.continue_forever", "boolProp", "false"},
		}...)
	}
	if rp.Users > 0 {
		set = append(set, struct{ name, tag, value string }{"ThreadGroup.num_threads", "stringProp", strconv.Itoa(rp.Users)})
	}
	var out []patch
	for _, s := range set {
		el := "<" + s.tag + ` name="` + s.name + `">` + s.value + "</" + s.tag + ">"
		if r, ok := g.at[s.name]; ok {
			out = append(out, patch{r[0], r[1], el})
		} else if !strings.HasPrefix(s.name, "LoopController.") {
			out = append(out, patch{afterStart, afterStart, el})
		}
	}
	return out
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// unescape is the character data of an element's raw text.
func unescape(s string) string {
	dec := xml.NewDecoder(strings.NewReader("<x>" + s + "</x>"))
	var v string
	if err := dec.Decode(&v); err != nil {
		return s
	}
	return v
}
