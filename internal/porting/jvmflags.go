package porting

import (
	"bufio"
	"bytes"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// JVM options and base images in start scripts, systemd units, Dockerfiles
// and JAVA_OPTS files. Lines like these stop an aarch64 JVM at start-up
// ("Unrecognized VM option 'UseAVX=2'"):
//
//	JAVA_OPTS="-Xms4g -Xmx4g -XX:UseAVX=2 -XX:+UseRTMLocking"          (bin/setenv.sh)
//	Environment="JAVA_OPTS=-XX:UseSSE=4 -XX:+UseG1GC"                  (app.service)
//	-XX:+UseXMMForObjInit                                              (config/jvm.options)
//	FROM --platform=linux/amd64 eclipse-temurin:17-jre                 (Dockerfile)
//	FROM amd64/openjdk:8-jre

// x86OnlyFlags are declared only in HotSpot's cpu/x86/globals_x86.hpp
// (openjdk/jdk mainline) and so are unknown to an aarch64 JVM.
const x86OnlyFlags = `UseSSE UseAVX UseAPX UseKNLSetting UseCLMUL UseIncDec UseNewLongLShift
	UseAddressNop UseXmmLoadAndClearUpper UseXmmRegToRegMoveAll UseXmmI2D UseXmmI2F
	UseUnalignedLoadStores UseXMMForObjInit UseFastStosb UseStoreImmI16 UseRTMLocking
	UseRTMForStackLocks UseRTMDeopt RTMRetryCount RTMSpinLoopCount RTMAbortThreshold
	RTMLockingThreshold RTMAbortRatio RTMTotalCountIncrRate RTMLockingCalculationDelay
	UseRTMXendForLockBusy UseCountLeadingZerosInstruction UseCountTrailingZerosInstruction
	UseSSE42Intrinsics UseBMI1Instructions UseBMI2Instructions UseLibmIntrinsic EnableX86ECoreOpts
	AVX3Threshold IntelJccErratumMitigation UseXMMForArrayCopy`

// x86Only reports a flag from x86OnlyFlags (a constant, so no caller can change the list).
func x86Only(name string) bool { return slices.Contains(strings.Fields(x86OnlyFlags), name) }

var xxFlag = regexp.MustCompile(`-XX:([+-]?)([A-Za-z][A-Za-z0-9_]*)(=[^\s"',;]*)?`)

// FlagHit is one x86-only option found in a file.
type FlagHit struct {
	Line int    `json:"line"`
	Flag string `json:"flag"` // as written, "-XX:UseAVX=2"
	Name string `json:"name"` // "UseAVX"
}

// ImageHit is a container base image that pins x86-64 or is known amd64-only.
type ImageHit struct {
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Blocker bool   `json:"blocker"` // pinned to amd64 (vs. only likely x86-only)
}

// OptionsScan is what ScanOptions finds in one text file.
type OptionsScan struct {
	Flags  []FlagHit
	Ignore int // line of -XX:+IgnoreUnrecognizedVMOptions, 0 when absent
	Images []ImageHit
}

// ScanOptions looks for x86-only JVM flags and x86-pinned base images in a
// text file (script, unit, Dockerfile, options file).
func ScanOptions(b []byte, dockerfile bool) OptionsScan {
	var out OptionsScan
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		if strings.Contains(line, "-XX:") {
			for _, m := range xxFlag.FindAllStringSubmatch(line, -1) {
				switch {
				case x86Only(m[2]):
					out.Flags = append(out.Flags, FlagHit{Line: n, Flag: m[0], Name: m[2]})
				case m[2] == "IgnoreUnrecognizedVMOptions" && m[1] == "+":
					out.Ignore = n
				}
			}
		}
		if dockerfile && len(trim) > 5 && strings.EqualFold(trim[:5], "FROM ") {
			if h, ok := judgeFrom(trim); ok {
				h.Line = n
				out.Images = append(out.Images, h)
			}
		}
	}
	return out
}

func judgeFrom(line string) (ImageHit, bool) {
	f := strings.Fields(line)[1:]
	l := strings.ToLower(line)
	for _, w := range f {
		lw := strings.ToLower(w)
		if strings.HasPrefix(lw, "--platform=") && strings.Contains(lw, "amd64") {
			return ImageHit{Text: line, Blocker: true}, true
		}
	}
	for _, w := range f {
		lw := strings.ToLower(w)
		if strings.HasPrefix(lw, "--") {
			continue
		}
		if strings.HasPrefix(lw, "amd64/") || strings.Contains(lw, "/amd64/") || strings.Contains(lw, "@sha256:") && strings.Contains(l, "amd64") {
			return ImageHit{Text: line, Blocker: true}, true
		}
		// Official openjdk Alpine tags were amd64-only (adoptium/containers#425, docker-library/openjdk#318).
		if (strings.HasPrefix(lw, "openjdk:") || strings.HasPrefix(lw, "library/openjdk:")) && strings.Contains(lw, "alpine") {
			return ImageHit{Text: line}, true
		}
		break // the image is the first non-flag word
	}
	return ImageHit{}, false
}

// flagNames lists the distinct flag names of the hits, sorted.
func flagNames(h []FlagHit) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range h {
		if !seen[x.Name] {
			seen[x.Name] = true
			out = append(out, x.Name)
		}
	}
	sort.Strings(out)
	return out
}

// IsOptionsFileName reports whether a file in an install tree may carry
// JVM options or a base image: scripts, units, Dockerfiles, options files.
func IsOptionsFileName(name string) (ok, dockerfile bool) {
	b := strings.ToLower(baseName(name))
	switch {
	case b == "dockerfile" || strings.HasPrefix(b, "dockerfile.") || strings.HasSuffix(b, ".dockerfile") || b == "containerfile":
		return true, true
	case strings.HasSuffix(b, ".sh"), strings.HasSuffix(b, ".bash"), strings.HasSuffix(b, ".service"),
		strings.HasSuffix(b, ".conf"), strings.HasSuffix(b, ".cfg"), strings.HasSuffix(b, ".options"),
		strings.HasSuffix(b, ".vmoptions"), strings.HasSuffix(b, ".env"), strings.HasSuffix(b, ".yaml"),
		strings.HasSuffix(b, ".yml"), strings.HasPrefix(b, "setenv"), strings.Contains(b, "java_opts"),
		strings.Contains(b, "jvm.options"), b == "jvm.config":
		return true, false
	}
	// Extensionless launchers in bin/ (catalina, kafka-server-start, ...).
	if strings.Contains("/"+strings.ToLower(name), "/bin/") && !strings.Contains(b, ".") {
		return true, false
	}
	return false, false
}
