package report

import (
	"encoding/json"
	"io"
)

// WriteJSON is the one JSON writer of every command and document: indented
// by two spaces, HTML characters left as they are (the output is data, not a
// page), one trailing newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
