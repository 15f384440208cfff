package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// createOut opens a report file for writing, creating its directory.
func createOut(path string) (*os.File, error) {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating %s: %w", dir, err)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cannot write the report: %w", err)
	}
	return f, nil
}

// closeOut closes w when it is a file, reporting a failed final write
// (a full disk shows up here, not at Write).
func closeOut(w io.Writer) error {
	if f, ok := w.(*os.File); ok {
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", f.Name(), err)
		}
	}
	return nil
}
