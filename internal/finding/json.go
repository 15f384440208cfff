package finding

import (
	"bytes"
	"encoding/json"
	"io"
	"unicode/utf8"
)

// WriteJSON is the one JSON writer of every command and document: indented
// by two spaces, HTML characters left as they are (the output is data, not a
// page), one trailing newline. DEL, the C1 controls and the bidi controls,
// which encoding/json leaves raw, are written as \u escapes, so JSON of
// target text is as harmless on a terminal as the text output.
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeC1(b.Bytes()))
	return err
}

// escapeC1 rewrites DEL, U+0080..U+009F and the bidi controls
// (IsBidiControl); they occur only inside strings.
func escapeC1(p []byte) []byte {
	if !bytes.Contains(p, []byte{0x7f}) && !bytes.Contains(p, []byte{0xc2}) && !bytes.Contains(p, []byte{0xe2}) && !bytes.Contains(p, []byte{0xd8, 0x9c}) {
		return p
	}
	out := make([]byte, 0, len(p)+16)
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		if r == 0x7f || (r >= 0x80 && r < 0xa0) || IsBidiControl(r) {
			out = append(out, `\u`...)
			out = append(out, "0123456789abcdef"[r>>12&0xf], "0123456789abcdef"[r>>8&0xf], "0123456789abcdef"[r>>4&0xf], "0123456789abcdef"[r&0xf])
		} else {
			out = append(out, p[:n]...)
		}
		p = p[n:]
	}
	return out
}
