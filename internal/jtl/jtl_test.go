package jtl

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/loadgen"
)

// jmeterCSV is JMeter's default CSV output (header on), with a socket
// timeout, a failed code assertion and a quoted label.
const jmeterCSV = `timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect
1700000000000,112,Login,200,OK,Thread Group 1-1,text,true,,1591,114,10,10,http://shop.example/login,110,0,37
1700000000131,5003,Search,Non HTTP response code: java.net.SocketTimeoutException,Non HTTP response message: Read timed out,Thread Group 1-2,text,false,,2370,121,10,10,http://shop.example/search?q=a,0,0,1
1700000000150,9,"Pay, then confirm",500,Internal Server Error,Thread Group 1-3,text,false,"Test failed: code expected to match /200/",220,140,10,10,http://shop.example/pay,9,0,0
1700000001150,20,Login,200,OK,Thread Group 1-1,text,true,,1591,114,10,10,http://shop.example/login,18,0,0
1700000001200,3,Login,Non HTTP response code: org.apache.http.conn.HttpHostConnectException,Non HTTP response message: Connect to shop.example:80 failed: Connection refused,Thread Group 1-4,text,false,,0,0,10,10,http://shop.example/login,0,0,3
`

func TestImportJMeterCSV(t *testing.T) {
	for name, in := range map[string]string{
		"header":    jmeterCSV,
		"no header": jmeterCSV[strings.IndexByte(jmeterCSV, '\n')+1:],
		"tabs":      strings.ReplaceAll(strings.ReplaceAll(jmeterCSV, ",", "\t"), `"Pay	 then confirm"`, "Pay, then confirm"),
		"crlf bom":  "\ufeff" + strings.ReplaceAll(jmeterCSV, "\n", "\r\n"),
	} {
		t.Run(name, func(t *testing.T) {
			res, err := Import(strings.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			s := res.Summary
			if res.Samples != 5 || res.Skipped != 0 || s.Requests != 5 || s.Errors != 3 {
				t.Fatalf("samples %d skipped %d %v; requests %d errors %d", res.Samples, res.Skipped, res.Problems, s.Requests, s.Errors)
			}
			want := map[string]int64{"timeout": 1, "status": 1, "connect_refused": 1}
			if name == "tabs" {
				want = map[string]int64{"timeout": 1, "status": 1, "connect_refused": 1}
			}
			for k, n := range want {
				if s.ErrorKinds[k] != n {
					t.Errorf("errors %v, want %v", s.ErrorKinds, want)
				}
			}
			if len(s.Labels) != 3 || s.Labels[0].Label != "Login" || s.Labels[0].Requests != 3 {
				t.Fatalf("labels %+v", s.Labels)
			}
			// JMeter's throughput: samples / (last end - first start) = 5 / 1.2s.
			if math.Abs(s.Duration-5.134) > 0.001 || s.Latency.Max != 5003 {
				t.Fatalf("duration %v max %v", s.Duration, s.Latency.Max)
			}
			if len(s.Series) != 2 || s.Series[0].Requests != 3 || s.Series[1].T != 1 {
				t.Fatalf("series %+v", s.Series)
			}
		})
	}
}

const jmeterXML = `<?xml version="1.0" encoding="UTF-8"?>
<testResults version="1.2">
<httpSample t="112" it="0" lt="110" ct="37" ts="1700000000000" s="true" lb="Login" rc="200" rm="OK" tn="Thread Group 1-1" dt="text" by="1591" sby="114" ng="10" na="10">
  <httpSample t="50" lt="50" ts="1700000000000" s="true" lb="Login-0" rc="302" rm="Found" by="200"/>
  <java.net.URL>http://shop.example/login</java.net.URL>
</httpSample>
<httpSample t="9" lt="9" ts="1700000000150" s="false" lb="Pay" rc="200" rm="OK" tn="Thread Group 1-3" by="220" sby="140" ng="10" na="10"><assertionResult><name>Response Assertion</name><failure>true</failure><error>false</error><failureMessage>Test failed: text expected to contain /paid/</failureMessage></assertionResult></httpSample>
<sample t="5003" lt="0" ts="1700000000131" s="false" lb="Search" rc="Non HTTP response code: java.net.SocketTimeoutException" rm="Non HTTP response message: Read timed out" tn="Thread Group 1-2"/>
<httpSample t="oops" ts="1700000000300" s="true" lb="Login" rc="200"/>
</testResults>
`

func TestImportJMeterXML(t *testing.T) {
	res, err := Import(strings.NewReader(jmeterXML))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if res.Format != "jtl-xml" || s.Requests != 3 || s.Errors != 2 || s.ErrorKinds["assertion"] != 1 || s.ErrorKinds["timeout"] != 1 {
		t.Fatalf("%+v %+v", res, s)
	}
	if res.Skipped != 1 || res.Problems[0].Line != 9 || !strings.Contains(res.Problems[0].Msg, `t="oops"`) {
		t.Fatalf("problems %+v", res.Problems)
	}
}

func TestMalformedLinesReportedWithLineNumbers(t *testing.T) {
	lines := strings.Split(jmeterCSV, "\n")
	in := strings.Join([]string{lines[0], lines[1],
		"1700000000200,abc,Login,200,OK,T 1-1,text,true,,1,1,1,1,u,1,0,0", // line 3
		"",        // line 4, blank: ignored
		"garbage", // line 5
		"1700000000300,5,Login,200,OK,T 1-1,text,maybe,,1,1,1,1,u,1,0,0", // line 6
		lines[2]}, "\n")
	res, err := ImportCSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, p := range res.Problems {
		got = append(got, p.Line)
	}
	if res.Samples != 2 || res.Skipped != 3 || len(got) != 3 || got[0] != 3 || got[1] != 5 || got[2] != 6 {
		t.Fatalf("samples %d problems %v", res.Samples, res.Problems)
	}
	if !strings.Contains(res.Problems[0].String(), `line 3: elapsed "abc"`) {
		t.Fatalf("%s", res.Problems[0])
	}
	// Nothing usable: an error naming the first bad line.
	_, err = ImportCSV(strings.NewReader(lines[0] + "\nx,y,z\n"))
	if !errors.Is(err, ErrNoSamples) || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v", err)
	}
}

// TestRoundTrip: a JTL written by a real run imports to the same counts and
// close latencies (JTL has millisecond resolution).
func TestRoundTrip(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bad" {
			w.WriteHeader(503)
		}
		time.Sleep(2 * time.Millisecond)
		io.WriteString(w, "body, with \"quotes\"")
	}))
	defer srv.Close()
	var buf bytes.Buffer
	jw := loadgen.NewJTLWriter(&buf)
	run, err := loadgen.Generate(context.Background(), loadgen.Config{
		Requests: []loadgen.Request{{URL: srv.URL + "/ok", Label: "ok, \"quoted\"", Weight: 3}, {URL: srv.URL + "/bad", Label: "bad"}},
		Users:    4, MaxRequests: 300, Sink: jw})
	if err != nil {
		t.Fatal(err)
	}
	if err := jw.Flush(); err != nil {
		t.Fatal(err)
	}
	res, err := Import(&buf)
	if err != nil {
		t.Fatal(err)
	}
	imp := res.Summary
	if imp.Requests != run.Requests || imp.Errors != run.Errors || imp.ErrorKinds["status"] != run.ErrorKinds["status"] {
		t.Fatalf("imported %d/%d %v, ran %d/%d %v", imp.Requests, imp.Errors, imp.ErrorKinds, run.Requests, run.Errors, run.ErrorKinds)
	}
	byLabel := map[string]int64{}
	for _, l := range run.Labels {
		byLabel[l.Label] = l.Requests
	}
	for _, l := range imp.Labels {
		if byLabel[l.Label] != l.Requests {
			t.Fatalf("labels %+v vs %+v", imp.Labels, run.Labels)
		}
		delete(byLabel, l.Label)
	}
	if len(byLabel) != 0 {
		t.Fatalf("labels %+v vs %+v", imp.Labels, run.Labels)
	}
	if math.Abs(imp.Latency.P50-run.Latency.P50) > 1.01 || imp.BytesIn != run.BytesIn || imp.BytesOut != run.BytesOut {
		t.Fatalf("p50 %v vs %v, bytes %d/%d vs %d/%d", imp.Latency.P50, run.Latency.P50, imp.BytesIn, imp.BytesOut, run.BytesIn, run.BytesOut)
	}
}

func FuzzImportCSV(f *testing.F) {
	f.Add(jmeterCSV)
	f.Add("1,2,\"a\n\"\"b\",200\n")
	f.Add("timeStamp;elapsed;label\n1;2;x\n")
	f.Fuzz(func(t *testing.T, in string) {
		res, err := ImportCSV(strings.NewReader(in))
		if err == nil && (res.Summary == nil || res.Summary.Requests != res.Samples) {
			t.Fatalf("inconsistent result %+v", res)
		}
	})
}

func FuzzImportXML(f *testing.F) {
	f.Add(jmeterXML)
	f.Add(`<testResults><sample ts="1" t="2" s="false" rc="x"/></testResults>`)
	f.Fuzz(func(t *testing.T, in string) {
		res, err := ImportXML(strings.NewReader(in))
		if err == nil && (res.Summary == nil || res.Summary.Requests != res.Samples) {
			t.Fatalf("inconsistent result %+v", res)
		}
	})
}

func BenchmarkImportCSV(b *testing.B) {
	body := jmeterCSV[strings.IndexByte(jmeterCSV, '\n')+1:]
	in := jmeterCSV + strings.Repeat(body, 2000)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ImportCSV(strings.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkImportXML(b *testing.B) {
	i, j := strings.Index(jmeterXML, "<httpSample"), strings.Index(jmeterXML, "</testResults>")
	in := jmeterXML[:i] + strings.Repeat(jmeterXML[i:j], 1000) + jmeterXML[j:]
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := ImportXML(strings.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWriterErrorRowsRoundTrip: non-HTTP failures keep their kind through
// our JTL and back, and awkward labels survive quoting.
func TestWriterErrorRowsRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := loadgen.NewJTLWriter(&buf)
	t0 := time.UnixMilli(1700000000000)
	kinds := []loadgen.ErrorKind{loadgen.KindRefused, loadgen.KindTimeout, loadgen.KindTLS, loadgen.KindReset, loadgen.KindDNS}
	for i, k := range kinds {
		w.Record(&loadgen.Sample{Start: t0.Add(time.Duration(i) * time.Second), Elapsed: 3 * time.Millisecond,
			Label: "a,\"b\"\nc", Kind: k, Message: []byte("dial tcp: x, y"), URL: "http://h/?q=1,2"})
	}
	w.Record(&loadgen.Sample{Start: t0, Elapsed: time.Millisecond, Label: "ok", Code: 200, Message: []byte("OK"), Success: true})
	w.Record(&loadgen.Sample{Start: t0, Elapsed: time.Millisecond, Label: "ok", Code: 200, Message: []byte("OK"),
		Kind: loadgen.KindAssertion, FailureMessage: `body does not contain "x"`})
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	res, err := Import(&buf)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if res.Skipped != 0 || s.Requests != 7 || s.Errors != 6 || len(s.Labels) != 2 || s.Labels[0].Label != "a,\"b\"\nc" {
		t.Fatalf("%+v %+v", res, s)
	}
	for _, k := range append(kinds, loadgen.KindAssertion) {
		if s.ErrorKinds[k.String()] != 1 {
			t.Fatalf("kinds %v", s.ErrorKinds)
		}
	}
}

func TestImportDateTimestampsAndFewColumns(t *testing.T) {
	// timestamp_format=yyyy/MM/dd HH:mm:ss.SSS and a trimmed column set.
	in := "timeStamp;elapsed;label;responseCode;success\n" +
		"2024/03/01 10:00:00.000;15;Home;200;true\n" +
		"2024/03/01 10:00:01.500;25;Home;404;false\n"
	res, err := Import(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Requests != 2 || s.ErrorKinds["status"] != 1 || s.StatusCodes["404"] != 1 || math.Abs(s.Duration-1.525) > 1e-9 {
		t.Fatalf("%+v", s)
	}
}

// ImportWindow keeps only the samples sent inside the window.
func TestImportWindow(t *testing.T) {
	const csv = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n" +
		"1700000000000,10,a,200,OK,t1,text,true,,10,10,1,1,http://x/,5,0,1\n" +
		"1700000005000,20,a,200,OK,t1,text,true,,10,10,1,1,http://x/,5,0,1\n" +
		"1700000010000,30,a,500,ERR,t1,text,false,,10,10,1,1,http://x/,5,0,1\n"
	from, to := time.UnixMilli(1700000004000), time.UnixMilli(1700000011000)
	r, err := ImportWindow(strings.NewReader(csv), from, to)
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Requests != 2 || r.Summary.Errors != 1 {
		t.Errorf("window kept %d requests, %d errors; want 2 and 1", r.Summary.Requests, r.Summary.Errors)
	}
}
