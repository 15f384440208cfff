package report

import (
	"io"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// WriteJSON is the one JSON writer of every command and document
// (finding.WriteJSON, which packages below report use directly).
func WriteJSON(w io.Writer, v any) error { return finding.WriteJSON(w, v) }
