// JTL XML (jmeter.save.saveservice.output_format=xml):
//
//	<?xml version="1.0" encoding="UTF-8"?>
//	<testResults version="1.2">
//	<httpSample t="112" it="0" lt="110" ct="37" ts="1700000000000" s="true" lb="Login" rc="200" rm="OK" tn="Thread Group 1-1" dt="text" by="1591" sby="114" ng="10" na="10"/>
//	<httpSample t="9" lt="9" ts="1700000000150" s="false" lb="Pay" rc="500" rm="Internal Server Error" tn="Thread Group 1-3" by="220" sby="140" ng="10" na="10"><assertionResult><name>Response Assertion</name><failure>true</failure><error>false</error><failureMessage>Test failed: code expected to match /200/</failureMessage></assertionResult></httpSample>
//	</testResults>
//
// Only top-level samples count; nested ones (redirects, Transaction
// Controller children) are part of their parent, as in JMeter's dashboard.

package jtl

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"

	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// ImportXML reads a JTL XML file.
func ImportXML(r io.Reader) (*Result, error) { return importXML(r, nil) }

func importXML(r io.Reader, keep func(*loadgen.Sample) bool) (*Result, error) {
	res := &Result{Format: "jtl-xml"}
	agg := loadgen.NewAggregator()
	dec := xml.NewDecoder(r)
	dec.Strict = false // JMeter output is well-formed; hand-edited files may not be
	var (
		depth     int  // element depth; testResults is 1, samples 2
		inSample  bool // inside a top-level sample
		sampleOK  bool
		line      int
		s         loadgen.Sample
		rc, rm    string
		fmsg      string
		inFailMsg bool
		sawRoot   bool
	)
	for {
		tok, err := dec.Token()
		line, _ = dec.InputPos() // where the token ends: its line for one-line samples
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				res.problem(se.Line, "%s", se.Msg)
				if res.Samples == 0 && !sawRoot {
					return nil, errors.New("not a JTL XML file: " + err.Error())
				}
				break // the decoder cannot resume after a syntax error
			}
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				sawRoot = true
				if t.Name.Local != "testResults" {
					return nil, errors.New("not a JTL XML file: root element is <" + t.Name.Local + ">, want <testResults>")
				}
			}
			if depth == 2 && (t.Name.Local == "httpSample" || t.Name.Local == "sample") {
				inSample = true
				fmsg = ""
				var msg string
				rc, rm, msg = sampleFromXML(&s, t.Attr)
				sampleOK = msg == ""
				if !sampleOK {
					res.problem(line, "%s", msg)
				}
			}
			if inSample && t.Name.Local == "failureMessage" {
				inFailMsg = true
			}
		case xml.CharData:
			if inFailMsg && fmsg == "" {
				fmsg = strings.TrimSpace(string(t))
			}
		case xml.EndElement:
			if t.Name.Local == "failureMessage" {
				inFailMsg = false
			}
			if depth == 2 && inSample {
				inSample = false
				if sampleOK {
					setCode(&s, rc, rm, fmsg)
					if keep == nil || keep(&s) {
						agg.Add(&s)
						res.Samples++
					}
				}
			}
			depth--
		}
	}
	if !sawRoot {
		return nil, errors.New("not a JTL XML file: no <testResults> element")
	}
	return res.finish(agg)
}

// sampleFromXML fills s from a sample's attributes and returns rc and rm; a
// non-empty msg says why the sample is unusable.
func sampleFromXML(s *loadgen.Sample, attrs []xml.Attr) (rc, rm, msg string) {
	*s = loadgen.Sample{}
	var haveTS, haveT bool
	for _, a := range attrs {
		v := a.Value
		var ok = true
		switch a.Name.Local {
		case "ts":
			s.Start, ok = parseTimestamp(strings.TrimSpace(v))
			haveTS = true
		case "t":
			s.Elapsed, ok = parseMS(strings.TrimSpace(v))
			haveT = true
		case "lt":
			s.Latency, _ = parseMS(strings.TrimSpace(v))
		case "ct":
			s.Connect, _ = parseMS(strings.TrimSpace(v))
		case "s":
			s.Success = strings.EqualFold(strings.TrimSpace(v), "true")
		case "lb":
			s.Label = v
		case "rc":
			rc = v
		case "rm":
			rm = v
		case "by":
			s.BytesIn = parseCount(v)
		case "sby":
			s.BytesOut = parseCount(v)
		case "tn":
			s.ThreadName = v
		case "na":
			s.AllThreads = int(min(parseCount(v), 1<<30))
		case "ng":
			s.GrpThreads = int(min(parseCount(v), 1<<30))
		}
		if !ok {
			return "", "", a.Name.Local + "=" + quote(v) + " is not valid"
		}
	}
	if !haveTS || !haveT {
		return "", "", "sample without ts or t attribute"
	}
	return rc, rm, ""
}
