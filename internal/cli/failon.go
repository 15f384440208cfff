package cli

import "github.com/tuneloop/tuneloop/internal/finding"

// failOnOpt parses --fail-on (warning or critical; "" is no gate) once for
// every command that has it.
func failOnOpt(s string) (*finding.Severity, error) {
	if s == "" {
		return nil, nil
	}
	v, err := finding.ParseSeverity(s)
	if err != nil || v == finding.Info {
		return nil, usageErr(finding.T("--fail-on: want warning or critical, got %q", "--fail-on：应为 warning 或 critical，实际为 %q"), s)
	}
	return &v, nil
}

// failOnGate is the --fail-on gate: exit 3 when a finding of fs is at or
// above failOn (nil: no gate, nil error).
func failOnGate(failOn *finding.Severity, fs []finding.Finding) error {
	if failOn == nil {
		return nil
	}
	if worst, any := finding.Worst(fs); any && worst >= *failOn {
		return &ExitError{Code: ExitFindings}
	}
	return nil
}
