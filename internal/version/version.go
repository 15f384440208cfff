// Package version holds the build's version, set by the Makefile with
// -ldflags "-X github.com/tuneloop/tuneloop/internal/version.Version=...".
package version

// Version is the release or git describe of this build.
var Version = "dev"
