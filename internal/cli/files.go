package cli

import (
	"io"
	"os"

	"github.com/tuneloop/tuneloop/internal/report"
)

// createOut opens a report file for writing, creating its directory.
func createOut(path string) (*os.File, error) { return report.CreateFile(path) }

// closeOut closes w when it is a file, reporting a failed final write.
func closeOut(w io.Writer) error { return report.CloseFile(w) }
