package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tuneloop/tuneloop/internal/apply"
	"github.com/tuneloop/tuneloop/internal/finding"
)

// `apply --confirm TX` answers through the same writer as apply: a line
// in each language, and JSON a script can read (it printed text whatever
// -o said before).
func TestWriteApplyConfirmed(t *testing.T) {
	d := &apply.Doc{Journal: "/var/lib/tuneloop/journal", Confirmed: "tx-20261129-1"}
	for l, want := range map[finding.Lang]string{finding.EN: "confirmed: the changes of transaction tx-20261129-1", finding.ZH: "已确认：保留事务 tx-20261129-1"} {
		var b bytes.Buffer
		if err := WriteApply(&b, d, Text, l); err != nil || strings.TrimSpace(b.String()) != want {
			t.Errorf("%s: %q, %v; want %q", l, b.String(), err, want)
		}
	}
	var b bytes.Buffer
	if err := WriteApply(&b, d, JSON, finding.EN); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Confirmed string `json:"confirmed"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil || got.Confirmed != d.Confirmed {
		t.Errorf("JSON %s: %+v %v", b.String(), got, err)
	}
}
