package probe

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func sampleResult() *Result {
	return &Result{Schema: Schema, Start: time.Unix(1e9, 0), End: time.Unix(1e9+5, 0), Parts: []string{PartCPU}, Rounds: 3,
		Figures: []Figure{{ID: "cpu.syscall", Part: PartCPU, Unit: "ns", Median: 100, Lo: 90, Hi: 120, Rounds: []float64{90, 100, 120}},
			{ID: "cpu.none", Part: PartCPU, Unit: "ns", Median: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Err: "refused"}},
		Matrix: &Matrix{CPUs: []int{0, 1}, NS: [][]float64{{math.NaN(), 50}, {50, math.NaN()}}, Rounds: 3}}
}

func TestDecodeRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(sampleResult()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"median":null`) {
		t.Fatalf("NaN must be written as null: %s", b.String())
	}
	r, err := Decode(&b, "probe.json")
	if err != nil {
		t.Fatal(err)
	}
	if f := r.Figure("cpu.syscall"); f == nil || f.Median != 100 || len(f.Rounds) != 3 {
		t.Fatalf("figure lost: %+v", f)
	}
	if f := r.Figure("cpu.none"); f == nil || !math.IsNaN(f.Median) {
		t.Fatalf("null must read back as NaN: %+v", f)
	}
	if !math.IsNaN(r.Matrix.NS[0][0]) || r.Matrix.NS[0][1] != 50 {
		t.Fatalf("matrix: %v", r.Matrix.NS)
	}
}

func TestDecodeRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"not json":      "{\n\"schema\": ",
		"other schema":  `{"schema": "tuneloop.run/v1"}`,
		"ragged matrix": `{"schema": "tuneloop.probe/v1", "core_to_core": {"cpus": [0, 1], "ns": [[null, 1], [1]]}}`,
		"short matrix":  `{"schema": "tuneloop.probe/v1", "core_to_core": {"cpus": [0, 1, 2], "ns": [[null]]}}`,
		"no id":         `{"schema": "tuneloop.probe/v1", "figures": [{"median": 1}]}`,
		"odd status":    `{"schema": "tuneloop.probe/v1", "status": "\u001b[31mdone"}`,
	} {
		if _, err := Decode(strings.NewReader(in), "x/probe.json"); err == nil || !strings.Contains(err.Error(), "x/probe.json") {
			t.Errorf("%s: want an error naming the file, got %v", name, err)
		}
	}
	_, err := Decode(strings.NewReader("{\n\"schema\": x"), "p.json")
	if err == nil || !strings.Contains(err.Error(), "p.json:2:") {
		t.Errorf("a syntax error must name the line: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	var b bytes.Buffer
	json.NewEncoder(&b).Encode(sampleResult())
	f.Add(b.Bytes())
	f.Add([]byte(`{"schema": "tuneloop.probe/v1", "core_to_core": {"cpus": [0], "ns": [[null]]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := Decode(bytes.NewReader(in), "f")
		if err != nil {
			return
		}
		// Whatever decodes must be safe to compare and render.
		c := Compare(r, r, "a", "b")
		if len(c.Rows) != len(uniqueIDs(r)) {
			t.Fatalf("%d rows for %d figures", len(c.Rows), len(uniqueIDs(r)))
		}
	})
}

func uniqueIDs(r *Result) map[string]bool {
	m := map[string]bool{}
	for _, f := range r.Figures {
		m[f.ID] = true
	}
	return m
}

func FuzzParseHello(f *testing.F) {
	f.Add(helloLine("s3cret", "lat", 64, false))
	f.Add(helloLine("", "udpbw", 65507, true))
	f.Add("TLPROBE/1 zz lat 1\n")
	f.Add("TLPROBE/1 - lat 1 pid\n")
	f.Fuzz(func(t *testing.T, line string) {
		h, err := parseHello(line)
		if err != nil {
			return
		}
		if h.size < 0 || h.size > MaxMsg {
			t.Fatalf("size %d accepted", h.size)
		}
		// What parses says the same again.
		h2, err := parseHello(helloLine(h.token, h.mode, h.size, h.tid))
		if err != nil || h2 != h {
			t.Fatalf("round trip: %+v -> %+v: %v", h, h2, err)
		}
	})
}
