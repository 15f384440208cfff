package finding

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Target text in JSON: every control and bidi character is a \u escape (a
// terminal showing the JSON acts on none), and the JSON reads back the same.
func TestWriteJSONEscapesControlsAndBidi(t *testing.T) {
	in := map[string]string{"name": "a\x07\x1b[31m\u009b2J\x7f\u202etxt.exe\u2066\u061c\u200f-线程"}
	var b bytes.Buffer
	if err := WriteJSON(&b, in); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, raw := range []string{"\x07", "\x1b", "\u009b", "\x7f", "\u202e", "\u2066", "\u061c", "\u200f"} {
		if strings.Contains(out, raw) {
			t.Errorf("%q raw in %s", raw, out)
		}
	}
	for _, esc := range []string{`\u0007`, `\u001b`, `\u009b`, `\u007f`, `\u202e`, `\u2066`, `\u061c`, `\u200f`, "线程"} {
		if !strings.Contains(out, esc) {
			t.Errorf("%s missing from %s", esc, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["name"] != in["name"] {
		t.Errorf("read back %q, %v", back["name"], err)
	}
}
