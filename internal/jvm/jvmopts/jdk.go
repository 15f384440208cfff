package jvmopts

// What tells the JDK a command line runs on, most trusted first:
//
//	--jdk 17                                          (the user)
//	JAVA_VERSION="1.8.0_342"  IMPLEMENTOR="Huawei Technologies Co., Ltd"   (JAVA_HOME/release)
//	java.version=17.0.15  java.vm.vendor=Eclipse Adoptium                  (system properties)
//	Full thread dump OpenJDK 64-Bit Server VM (17.0.15+6-Debian-1deb12u1 mixed mode, sharing):
//	Full thread dump Java HotSpot(TM) 64-Bit Server VM (25.181-b13 mixed mode):   (HotSpot 25 = JDK 8)
//	/usr/lib/jvm/bisheng-jdk1.8.0_342/bin/java        (the install path)
//	-XX:+UseZGC => 11+, -Xlog:gc => 9+, -XX:+PrintGCDateStamps => 8 or older  (the options themselves)

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Source says where a JDK version was read.
type Source string

// Sources of a JDK version.
const (
	SourceUser       Source = "--jdk"
	SourceRelease    Source = "JAVA_HOME/release"
	SourceProperty   Source = "java.version"
	SourceThreadDump Source = "thread dump header"
	SourcePath       Source = "install path"
	SourceOptions    Source = "options"
)

// Confidence of a JDK version: how much a recommendation may rest on it.
type Confidence int

// Confidence levels.
const (
	Unknown Confidence = iota
	Low                // inferred from options that exist only in some releases
	Medium             // guessed from an install path
	High               // read from the JDK itself, or told by the user
)

func (c Confidence) String() string {
	switch c {
	case Low:
		return "low"
	case Medium:
		return "medium"
	case High:
		return "high"
	}
	return "unknown"
}

// MarshalJSON writes the level's name.
func (c Confidence) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(c.String())), nil }

// JDK is what is known of the Java release a JVM runs (or will run) on.
// Either Major is known, or Min/Max bound it (0: no bound), or nothing is.
type JDK struct {
	Major  int `json:"major,omitempty"`  // feature release: 8, 11, 17, 21, 25; 0 when unknown
	Update int `json:"update,omitempty"` // 8u392 -> 392, 17.0.15 -> 15; 0 when unknown
	// Min and Max bound an unknown Major from the options: -XX:+UseZGC
	// starts only on 11+, -XX:+PrintGCDateStamps only on 8 or older.
	Min int `json:"min,omitempty"`
	Max int `json:"max,omitempty"`
	// Vendor: OpenJDK, Temurin, Oracle, Bisheng, Kona, Dragonwell, OpenJ9,
	// Zulu, Corretto, Liberica; "" when unknown.
	Vendor     string     `json:"vendor,omitempty"`
	Source     Source     `json:"source,omitempty"`
	Confidence Confidence `json:"confidence"`
	// Evidence is the text the version was read from.
	Evidence string `json:"evidence,omitempty"`
}

// Known reports whether the feature release is known.
func (j JDK) Known() bool { return j.Major > 0 }

// AtLeast reports whether the JDK is surely release n or later.
func (j JDK) AtLeast(n int) bool {
	if j.Major > 0 {
		return j.Major >= n
	}
	return j.Min >= n
}

// Below reports whether the JDK is surely older than release n.
func (j JDK) Below(n int) bool {
	if j.Major > 0 {
		return j.Major < n
	}
	return j.Max > 0 && j.Max < n
}

// Label is the version as people write it: "17", "8u392", "11+", "8 or older", "unknown".
func (j JDK) Label() string {
	switch {
	case j.Major == 8 && j.Update > 0:
		return fmt.Sprintf("8u%d", j.Update)
	case j.Major > 0:
		return strconv.Itoa(j.Major)
	case j.Min > 0 && j.Max > 0:
		return fmt.Sprintf("%d-%d", j.Min, j.Max)
	case j.Min > 0:
		return fmt.Sprintf("%d+", j.Min)
	case j.Max > 0:
		return fmt.Sprintf("%d or older", j.Max)
	}
	return "unknown"
}

// String says the version, the vendor and where both come from:
// "JDK 17 (Temurin; JAVA_HOME/release)", "JDK 11+ (options: -XX:+UseZGC)".
func (j JDK) String() string {
	if j.Confidence == Unknown {
		return "JDK unknown"
	}
	from := string(j.Source)
	if j.Evidence != "" && (j.Source == SourceOptions || j.Source == SourcePath) {
		from += ": " + j.Evidence
	}
	if j.Vendor != "" {
		from = j.Vendor + "; " + from
	}
	return fmt.Sprintf("JDK %s (%s)", j.Label(), from)
}

// FromVersion reads a version string ("1.8.0_342", "17.0.15", "21",
// "8u392", "17.0.15+6-Debian-1deb12u1") said by src; vendor is the release
// file's IMPLEMENTOR or java.vendor, if known. The result has no Confidence
// when s holds no version.
func FromVersion(s, vendor string, src Source) JDK {
	s = strings.Trim(strings.TrimSpace(s), `"`)
	major := MajorVersion(s)
	if major <= 0 || major > 99 {
		return JDK{Vendor: VendorOf(vendor)}
	}
	j := JDK{Major: major, Update: updateOf(s, major), Vendor: VendorOf(vendor + " " + s), Source: src, Confidence: High, Evidence: s}
	if src == SourcePath {
		j.Confidence = Medium
	}
	return j
}

// Given is the release the user named (--jdk 17); 0 gives nothing.
func Given(major int) JDK {
	if major <= 0 {
		return JDK{}
	}
	return JDK{Major: major, Source: SourceUser, Confidence: High, Evidence: strconv.Itoa(major)}
}

// updateOf returns the update of a version string of the given major:
// 1.8.0_342 / 8u342 -> 342, 17.0.15 -> 15.
func updateOf(s string, major int) int {
	if major <= 8 {
		if i := strings.IndexAny(s, "_u"); i >= 0 {
			n, j := readInt(s, i+1)
			if j > i+1 {
				return n
			}
		}
		return 0
	}
	// feature.interim.update
	parts := strings.SplitN(s, ".", 4)
	if len(parts) >= 3 {
		n, j := readInt(parts[2], 0)
		if j > 0 {
			return n
		}
	}
	return 0
}

var (
	// The VM version inside a thread dump header's parentheses.
	reDumpHeader = regexp.MustCompile(`Full thread dump (.*?) \(([^ )]+)`)
	// HotSpot's own numbering before JDK 9: 25.181-b13 is JDK 8u181.
	reHSVersion = regexp.MustCompile(`^(\d+)\.(\d+)-b\d+`)
)

// FromThreadDump reads the "Full thread dump ..." header line of a
// HotSpot thread dump.
func FromThreadDump(header string) JDK {
	m := reDumpHeader.FindStringSubmatch(header)
	if m == nil {
		return JDK{}
	}
	vm, ver := m[1], m[2]
	if hs := reHSVersion.FindStringSubmatch(ver); hs != nil {
		// HotSpot 25 shipped with JDK 8, 20-24 with JDK 7.
		n, _ := strconv.Atoi(hs[1])
		upd, _ := strconv.Atoi(hs[2])
		major := 0
		switch {
		case n == 25:
			major = 8
		case n >= 20 && n <= 24:
			major = 7
		}
		if major == 0 {
			return JDK{Vendor: VendorOf(vm)}
		}
		return JDK{Major: major, Update: upd, Vendor: VendorOf(vm), Source: SourceThreadDump, Confidence: High, Evidence: header}
	}
	j := FromVersion(ver, vm, SourceThreadDump)
	j.Evidence = strings.TrimSpace(header)
	return j
}

var (
	rePathJDK8  = regexp.MustCompile(`(?:jdk|jre)-?1\.8\.0[_-](\d+)`)
	rePathJDK8b = regexp.MustCompile(`(?:java-1\.8\.0|jdk8u|jdk-8u|jre8u)[^/]*?(\d{2,3})`)
	rePathJDK   = regexp.MustCompile(`(?:jdk|jre|java)-?(\d{1,2})(?:[.\-u_/]|$)`)
)

// FromPath guesses the release from an install path
// (/usr/lib/jvm/bisheng-jdk1.8.0_342, /opt/java-17-openjdk, jdk-21.0.2).
func FromPath(p string) JDK {
	lp := strings.ToLower(p)
	if m := rePathJDK8.FindStringSubmatch(lp); m != nil {
		u, _ := strconv.Atoi(m[1])
		return JDK{Major: 8, Update: u, Vendor: VendorOf(p), Source: SourcePath, Confidence: Medium, Evidence: p}
	}
	if m := rePathJDK8b.FindStringSubmatch(lp); m != nil {
		u, _ := strconv.Atoi(m[1])
		return JDK{Major: 8, Update: u, Vendor: VendorOf(p), Source: SourcePath, Confidence: Medium, Evidence: p}
	}
	if m := rePathJDK.FindStringSubmatch(lp); m != nil {
		if n, _ := strconv.Atoi(m[1]); n >= 5 && n <= 40 {
			return JDK{Major: n, Vendor: VendorOf(p), Source: SourcePath, Confidence: Medium, Evidence: p}
		}
	}
	return JDK{Vendor: VendorOf(p)}
}

// vendors maps text found in IMPLEMENTOR, java.vendor, the VM name or the
// install path to a vendor; the first match wins, so specific names come first.
var vendors = []struct{ key, name string }{
	{"bisheng", "Bisheng"}, {"huawei", "Bisheng"},
	{"kona", "Kona"}, {"tencent", "Kona"},
	{"dragonwell", "Dragonwell"}, {"alibaba", "Dragonwell"},
	{"openj9", "OpenJ9"}, {"semeru", "OpenJ9"}, {"ibm", "OpenJ9"}, {"international business machines", "OpenJ9"},
	{"adoptium", "Temurin"}, {"temurin", "Temurin"}, {"adoptopenjdk", "Temurin"},
	{"zulu", "Zulu"}, {"azul", "Zulu"},
	{"corretto", "Corretto"}, {"amazon", "Corretto"},
	{"liberica", "Liberica"}, {"bellsoft", "Liberica"},
	{"java hotspot", "Oracle"}, {"oracle", "Oracle"},
	{"openjdk", "OpenJDK"}, {"red hat", "OpenJDK"}, {"debian", "OpenJDK"}, {"ubuntu", "OpenJDK"},
}

// VendorOf names the vendor mentioned in s ("Huawei Technologies Co., Ltd"
// -> Bisheng, "Eclipse Adoptium" -> Temurin, "OpenJDK 64-Bit Server VM" ->
// OpenJDK); "" when none is.
func VendorOf(s string) string {
	ls := strings.ToLower(s)
	for _, v := range vendors {
		if strings.Contains(ls, v.key) {
			return v.name
		}
	}
	return ""
}

// optionBounds: options a JVM starts with only from (min) or up to (max) a
// release. Options a later JDK merely ignores with a warning do not bound
// it (a JDK 11 still starts with -XX:MaxPermSize), except where the JVM
// then refuses: -XX:+UseConcMarkSweepGC is ignored by 14 and refused from 15.
var optionBounds = []struct {
	name     string // -XX flag name, or a whole option for non -XX ones
	min, max int
}{
	{"-Xlog", 9, 0}, {"--add-opens", 9, 0}, {"--add-exports", 9, 0}, {"--add-modules", 9, 0},
	{"--add-reads", 9, 0}, {"--module-path", 9, 0}, {"--module", 9, 0}, {"--illegal-access", 9, 0},
	{"--enable-preview", 11, 0}, {"--enable-native-access", 17, 0},
	{"UseZGC", 11, 0}, {"UseEpsilonGC", 11, 0}, {"ZGenerational", 21, 0}, {"UseCompactObjectHeaders", 24, 0},
	{"UseConcMarkSweepGC", 0, 14}, {"-Xincgc", 0, 8}, {"-Xconcgc", 0, 14},
	{"PermSize", 0, 16}, {"MaxPermSize", 0, 16},
	{"UseParNewGC", 0, 9}, {"UseCGroupMemoryLimitForHeap", 0, 9},
	{"PrintGCDateStamps", 0, 8}, {"PrintGCTimeStamps", 0, 8}, {"UseGCLogFileRotation", 0, 8},
	{"NumberOfGCLogFiles", 0, 8}, {"GCLogFileSize", 0, 8}, {"PrintTenuringDistribution", 0, 8},
	{"PrintGCApplicationStoppedTime", 0, 8}, {"PrintGCApplicationConcurrentTime", 0, 8},
	{"PrintHeapAtGC", 0, 8}, {"PrintAdaptiveSizePolicy", 0, 8}, {"PrintGCCause", 0, 8},
}

// FromOptions bounds the release from the options themselves. The result
// has Confidence Low, or Unknown when no option says anything.
func FromOptions(o Options) JDK {
	j := JDK{}
	var ev []string
	has := func(name string) (string, bool) {
		if strings.HasPrefix(name, "-") {
			if name == "--module" && o.Module {
				return "-m " + o.Main, true
			}
			for _, a := range o.Other {
				if a == name || strings.HasPrefix(a, name+"=") || strings.HasPrefix(a, name+":") {
					return a, true
				}
			}
			return "", false
		}
		if on, ok := o.Bools[name]; ok && on {
			return "-XX:+" + name, true
		}
		if v, ok := o.Values[name]; ok {
			return "-XX:" + name + "=" + v, true
		}
		return "", false
	}
	for _, b := range optionBounds {
		opt, ok := has(b.name)
		if !ok {
			continue
		}
		if b.min > j.Min {
			j.Min = b.min
		}
		if b.max > 0 && (j.Max == 0 || b.max < j.Max) {
			j.Max = b.max
		}
		ev = append(ev, opt)
	}
	if len(ev) == 0 {
		return JDK{}
	}
	if j.Min > 0 && j.Min == j.Max {
		j.Major = j.Min
	}
	j.Source, j.Confidence, j.Evidence = SourceOptions, Low, strings.Join(ev, " ")
	return j
}

// Resolve combines what several sources say: the most trusted known
// release wins (the user, then the JDK's own files, then a path, in the
// order given among equals); with none known, the options' bounds. The
// vendor is the first one any source names.
func Resolve(cands ...JDK) JDK {
	var best JDK
	for _, c := range cands {
		if c.Major > 0 && c.Confidence > best.Confidence {
			best = c
		}
	}
	if best.Major == 0 {
		for _, c := range cands {
			if c.Confidence > Unknown && c.Major == 0 && (c.Min > 0 || c.Max > 0) {
				best = c
				break
			}
		}
	}
	if best.Vendor == "" {
		for _, c := range cands {
			if c.Vendor != "" {
				best.Vendor = c.Vendor
				break
			}
		}
	}
	return best
}
