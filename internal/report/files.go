package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// CreateFile opens a report file for writing, creating its directory.
func CreateFile(path string) (*os.File, error) {
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

// CloseFile closes w when it is a file, reporting a failed final write
// (a full disk shows up here, not at Write).
func CloseFile(w io.Writer) error {
	if f, ok := w.(*os.File); ok {
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", f.Name(), err)
		}
	}
	return nil
}

// WriteFile writes one report file with write (a page, collapsed stacks,
// pprof): created by CreateFile, closed by CloseFile.
func WriteFile(path string, write func(io.Writer) error) error {
	f, err := CreateFile(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return CloseFile(f)
}
