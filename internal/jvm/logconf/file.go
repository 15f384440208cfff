package logconf

import (
	"os"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// LoadFile reads and parses the configuration at path.
func LoadFile(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(path, f)
}

// AnalyzeFile reads the configuration at path and returns its findings.
func AnalyzeFile(path string) ([]finding.Finding, error) {
	c, err := LoadFile(path)
	if err != nil {
		return nil, err
	}
	return Analyze(c), nil
}
