package porting

import (
	"strconv"
	"strings"
	"unicode"
)

// Known libraries that carry native code, with the first version that works
// on linux/aarch64. The rows start from the public vendor tables (aws
// porting-advisor java.json and CommonNativeJarsTable.md, Alibaba Cloud's
// Yitian migration tool article) and are corrected against each library's
// repository or issue tracker, named in Source: the vendor tables disagree
// and some of their rows are wrong, e.g. rocksdbjni 5.0.1, JNA 5.8.0.
type Library struct {
	// Coords are groupId:artifactId values that identify the library.
	Coords []string
	// Bundles are OSGi Bundle-SymbolicName values (for jars without pom.properties).
	Bundles []string
	Name    string
	// Markers are substrings of native file names that belong to the library
	// (also when shaded or shipped in a classifier jar).
	Markers []string
	// Min holds the first good version per major line; a version passes when
	// it is at least the minimum of its own major line or of the last line.
	Min []string
	// Suggest is the version (or replacement) to move to, shown to the user.
	Suggest string
	// SideClassifier is the aarch64 classifier when natives ship in a separate jar.
	SideClassifier string
	// SideArtifact is groupId:artifactId of that jar when it differs from
	// the jar judged (Netty's classes jar vs. its native jar).
	SideArtifact string
	// Fallback: without the native library the library still works (slower).
	Fallback bool
	// Unsupported: no released aarch64 build; Replacement says what to use.
	Unsupported bool
	Replacement string
	// NotLinux: the natives are for another OS; nothing to port on Linux.
	NotLinux bool
	// LoaderOnly: loads another library's natives (judged by that library).
	LoaderOnly bool
	// Source says where the version comes from.
	Source string
}

// Libraries is the knowledge base of known native-carrying Java libraries.
func Libraries() []Library {
	return []Library{
		{Coords: []string{"org.xerial.snappy:snappy-java"}, Bundles: []string{"org.xerial.snappy.snappy-java"}, Name: "snappy-java", Markers: []string{"libsnappyjava"},
			Min: []string{"1.1.7.2"}, Suggest: "1.1.7.2", Fallback: true,
			Source: "xerial/snappy-java: Linux/aarch64 since 1.1.2.2; 1.1.7.2 fixes an aarch64 endian bug"},
		{Coords: []string{"org.lz4:lz4-java", "net.jpountz.lz4:lz4"}, Name: "lz4-java", Markers: []string{"liblz4-java"},
			Min: []string{"1.4.0"}, Suggest: "org.lz4:lz4-java:1.4.0", Fallback: true,
			Source: "lz4/lz4-java CHANGES: prebuilt aarch64 JNI from 1.4.0 (groupId org.lz4 from 1.4.0)"},
		{Coords: []string{"com.github.luben:zstd-jni"}, Bundles: []string{"com.github.luben.zstd-jni"}, Name: "zstd-jni", Markers: []string{"libzstd-jni"},
			Min: []string{"1.2.0"}, Suggest: "1.2.0", SideClassifier: "linux_aarch64",
			Source: "luben/zstd-jni README: linux-aarch64 builds; first tag v1.2.0"},
		{Coords: []string{"org.rocksdb:rocksdbjni"}, Name: "RocksDB JNI", Markers: []string{"librocksdbjni"},
			Min: []string{"5.18.4", "6.4.6"}, Suggest: "6.4.6",
			Source: "facebook/rocksdb#5559, ververica/frocksdb#14: linux-aarch64 in 5.18.4 (5.x) and 6.4.6; not in 6.0.1"},
		{Coords: []string{"com.github.jnr:jffi"}, Name: "jffi", Markers: []string{"libjffi"},
			Min: []string{"1.2.13"}, Suggest: "1.2.13", SideClassifier: "native",
			Source: "jnr/jffi: archive/jffi-aarch64-Linux.jar first in jffi-1.2.13"},
		{Coords: []string{"org.apache.commons:commons-crypto"}, Name: "commons-crypto", Markers: []string{"libcommons-crypto"},
			Min: []string{"1.1.0"}, Suggest: "1.1.0", Fallback: true,
			Source: "apache/commons-crypto changes.xml: 1.1.0 CRYPTO-139 Add support for AARCH64"},
		{Coords: []string{"io.netty:netty-transport-native-epoll", "io.netty:netty-transport-classes-epoll"}, Name: "Netty epoll",
			Markers: []string{"netty_transport_native_epoll"}, Min: []string{"4.1.55.Final"}, Suggest: "4.1.55.Final",
			SideClassifier: "linux-aarch_64", SideArtifact: "io.netty:netty-transport-native-epoll", Fallback: true,
			Source: "netty/netty#9804 (aarch64 from 4.1.50), #10845 (classifier linux-aarch_64 from 4.1.55)"},
		{Coords: []string{"io.netty:netty-all"}, Name: "Netty (netty-all)", Markers: []string{"netty_transport_native_epoll"},
			Min: []string{"4.1.51.Final"}, Suggest: "4.1.55.Final", Fallback: true,
			Source: "netty/netty#10279: netty-all aarch64 classifier fixed in 4.1.51"},
		{Coords: []string{"io.netty:netty-transport-native-kqueue", "io.netty:netty-transport-classes-kqueue"}, Name: "Netty kqueue",
			NotLinux: true, Source: "kqueue is the macOS/BSD transport; Linux uses epoll or NIO"},
		{Coords: []string{"io.netty:netty-common"}, Name: "Netty common", LoaderOnly: true,
			Source: "NativeLibraryLoader loads the epoll/tcnative libraries judged separately"},
		{Coords: []string{"io.netty:netty-tcnative", "io.netty:netty-tcnative-boringssl-static", "io.netty:netty-tcnative-classes"},
			Name: "netty-tcnative", Markers: []string{"netty_tcnative"}, Min: []string{"2.0.36.Final"}, Suggest: "2.0.36.Final",
			SideClassifier: "linux-aarch_64", SideArtifact: "io.netty:netty-tcnative-boringssl-static", Fallback: true,
			Source: "netty/netty-tcnative#517 (2.0.31), #591 (aarch_64 name in 2.0.35), grpc/grpc-java#7979 (works from 2.0.36)"},
		{Coords: []string{"org.fusesource.leveldbjni:leveldbjni-all", "org.fusesource.leveldbjni:leveldbjni"}, Name: "leveldbjni",
			Markers: []string{"libleveldbjni"}, Unsupported: true, Replacement: "org.openlabtesting.leveldbjni:leveldbjni-all:1.8",
			Source: "apache/bigtop#360: 1.8 ships x86-64 only; HADOOP-16614 uses org.openlabtesting.leveldbjni"},
		{Coords: []string{"org.openlabtesting.leveldbjni:leveldbjni-all"}, Name: "leveldbjni (openlabtesting)", Markers: []string{"libleveldbjni"},
			Source: "HADOOP-16614: aarch64 build of leveldbjni 1.8"},
		{Coords: []string{"org.fusesource.jansi:jansi-native"}, Name: "jansi-native", Markers: []string{"libjansi"},
			Unsupported: true, Replacement: "org.fusesource.jansi:jansi:2.0",
			Source: "fusesource/jansi: jansi 2.x bundles Linux/arm64; jansi-native has no aarch64 artifact"},
		{Coords: []string{"org.fusesource.jansi:jansi"}, Name: "jansi", Markers: []string{"libjansi"},
			Min: []string{"2.0"}, Suggest: "2.0", Fallback: true,
			Source: "fusesource/jansi: org/fusesource/jansi/internal/native/Linux/arm64/libjansi.so in 2.x"},
		{Coords: []string{"org.fusesource:sigar", "org.hyperic:sigar"}, Name: "Hyperic SIGAR", Markers: []string{"libsigar"},
			Unsupported: true, Replacement: "OSHI (com.github.oshi:oshi-core) or an in-house aarch64 build of SIGAR",
			Source: "aws porting-advisor java.json: manual build; hyperic/sigar#140"},
		{Coords: []string{"com.hadoop.gplcompression:hadoop-lzo"}, Name: "hadoop-lzo", Markers: []string{"libgplcompression"},
			Unsupported: true, Replacement: "an aarch64 build of hadoop-lzo from source",
			Source: "twitter/hadoop-lzo#133: published binaries are x86-64 only"},
		{Coords: []string{"net.java.dev.jna:jna"}, Bundles: []string{"com.sun.jna"}, Name: "JNA", Markers: []string{"libjnidispatch"},
			Min: []string{"4.2.0"}, Suggest: "5.x (4.2.0 is the first with linux-aarch64)",
			Source: "java-native-access/jna: lib/native/linux-aarch64.jar from tag 4.2.0"},
		{Coords: []string{"net.java.dev.jna:jna-platform"}, Name: "JNA platform", LoaderOnly: true,
			Source: "binds system libraries through JNA; judged by JNA's libjnidispatch"},
		{Coords: []string{"org.xerial:sqlite-jdbc"}, Bundles: []string{"org.xerial.sqlite-jdbc"}, Name: "sqlite-jdbc", Markers: []string{"libsqlitejdbc"},
			Min: []string{"3.20.0"}, Suggest: "3.20.0",
			Source: "xerial/sqlite-jdbc NEWS: 3.20.0 Support Linux aarch64"},
		{Coords: []string{"org.conscrypt:conscrypt-openjdk", "org.conscrypt:conscrypt-openjdk-uber"}, Name: "Conscrypt",
			Markers: []string{"conscrypt_openjdk_jni"}, Min: []string{"2.6.1"}, Suggest: "2.6.1 (needs glibc 2.35)",
			SideClassifier: "linux-aarch_64", Fallback: true,
			Source: "google/conscrypt#1475 (Linux aarch64 in 2.6.1), #1499 (glibc 2.35), apache/pulsar#26314"},
		{Coords: []string{"io.grpc:grpc-netty-shaded"}, Name: "grpc-netty-shaded",
			Markers: []string{"io_grpc_netty_shaded_netty_transport_native_epoll"}, Min: []string{"1.45.0"}, Suggest: "1.45.0",
			Fallback: true, Source: "grpc/grpc-java#8758: x86 and Arm64 epoll in grpc-netty-shaded from 1.45.0"},
		{Coords: []string{"org.apache.hadoop:hadoop-common"}, Name: "Apache Hadoop native", Markers: []string{"libhadoop.so", "libhdfs.so"},
			Min: []string{"3.3.5"}, Suggest: "3.3.5 (the hadoop-3.3.5-aarch64.tar.gz distribution)", Fallback: true,
			Source: "HADOOP-18401 (apache/hadoop#4953): aarch64 binaries from 3.3.5"},
	}
}

// sideGA is the groupId:artifactId of the jar holding the natives.
func (l *Library) sideGA(own string) string {
	if l.SideArtifact != "" {
		return l.SideArtifact
	}
	return own
}

// libraryByCoords finds a known library by groupId:artifactId.
func libraryByCoords(libs []Library, ga string) *Library {
	for i := range libs {
		for _, c := range libs[i].Coords {
			if c == ga {
				return &libs[i]
			}
		}
	}
	return nil
}

// libraryByArtifact finds a known library by artifactId alone (a jar with
// no pom.properties, named artifact-version.jar).
func libraryByArtifact(libs []Library, artifact string) *Library {
	for i := range libs {
		for _, c := range libs[i].Coords {
			if _, a, _ := strings.Cut(c, ":"); a == artifact {
				return &libs[i]
			}
		}
	}
	return nil
}

// libraryByBundle finds a known library by OSGi Bundle-SymbolicName
// ("com.sun.jna;singleton:=true" counts as "com.sun.jna").
func libraryByBundle(libs []Library, bsn string) *Library {
	bsn, _, _ = strings.Cut(bsn, ";")
	bsn = strings.TrimSpace(bsn)
	for i := range libs {
		for _, b := range libs[i].Bundles {
			if b == bsn {
				return &libs[i]
			}
		}
	}
	return nil
}

// libraryByNative finds a known library owning a native file name.
func libraryByNative(libs []Library, name string) *Library {
	n := strings.ToLower(name)
	var best *Library
	bestLen := 0
	for i := range libs {
		for _, m := range libs[i].Markers {
			if strings.Contains(n, m) && len(m) > bestLen { // the most specific marker wins (shaded grpc vs netty)
				best, bestLen = &libs[i], len(m)
			}
		}
	}
	return best
}

// VersionOK reports whether v is at least the library's minimum.
func (l *Library) VersionOK(v string) bool {
	if len(l.Min) == 0 || v == "" {
		return true
	}
	vm := majorOf(v)
	for _, m := range l.Min {
		if majorOf(m) == vm && CompareVersions(v, m) >= 0 {
			return true
		}
	}
	return CompareVersions(v, l.Min[len(l.Min)-1]) >= 0
}

func majorOf(v string) string {
	if i := strings.IndexAny(v, ".-_"); i >= 0 {
		return v[:i]
	}
	return v
}

// CompareVersions compares Maven-style versions: numeric parts numerically,
// qualifiers Final/RELEASE/GA as nothing, other qualifiers before release.
// "4.1.100.Final" > "4.1.55.Final"; "1.5.6-4" > "1.5.6"; "2.0.0-RC1" < "2.0.0".
func CompareVersions(a, b string) int {
	ta, tb := versionTokens(a), versionTokens(b)
	for i := 0; i < len(ta) || i < len(tb); i++ {
		var x, y string
		if i < len(ta) {
			x = ta[i]
		}
		if i < len(tb) {
			y = tb[i]
		}
		if c := compareToken(x, y); c != 0 {
			return c
		}
	}
	return 0
}

func versionTokens(v string) []string {
	var out []string
	cur := strings.Builder{}
	flush := func() {
		if cur.Len() > 0 {
			t := strings.ToLower(cur.String())
			if t != "final" && t != "release" && t != "ga" {
				out = append(out, t)
			}
			cur.Reset()
		}
	}
	prevDigit := false
	for i, r := range v {
		if r == '.' || r == '-' || r == '_' || r == '+' {
			flush()
			continue
		}
		isDigit := unicode.IsDigit(r)
		if i > 0 && cur.Len() > 0 && isDigit != prevDigit {
			flush()
		}
		cur.WriteRune(r)
		prevDigit = isDigit
	}
	flush()
	return out
}

// compareToken: "" (end) vs number: number wins; "" vs qualifier: "" wins
// (1.0 > 1.0-rc1); numbers numerically; qualifiers alphabetically.
func compareToken(x, y string) int {
	if x == y || (x == "" && y == "0") || (x == "0" && y == "") { // 1.2 == 1.2.0
		return 0
	}
	xn, xerr := strconv.ParseUint(x, 10, 64)
	yn, yerr := strconv.ParseUint(y, 10, 64)
	switch {
	case x == "":
		if yerr == nil {
			return -1
		}
		return 1
	case y == "":
		if xerr == nil {
			return 1
		}
		return -1
	case xerr == nil && yerr == nil:
		if xn < yn {
			return -1
		}
		return 1
	case xerr == nil:
		return 1
	case yerr == nil:
		return -1
	}
	return strings.Compare(x, y)
}
