package porting

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/porting/archive"
)

func scanPath(t *testing.T, p string, o Options) *PathReport {
	t.Helper()
	r, err := Scan(context.Background(), p, o)
	if err != nil {
		t.Fatalf("Scan(%s): %v", p, err)
	}
	for _, res := range r.Results {
		if res.Finding.Title.EN == "" || res.Finding.Title.ZH == "" {
			t.Errorf("%s: title missing a language: %+v", res.Component, res.Finding.Title)
		}
		if res.Verdict != Pass && (res.Finding.Fix.Note.EN == "" || res.Finding.Fix.Note.ZH == "") {
			t.Errorf("%s: fix note missing a language: %+v", res.Component, res.Finding.Fix.Note)
		}
		for _, txt := range []string{res.Finding.Title.EN, res.Finding.Title.ZH, res.Finding.Fix.Note.EN, res.Finding.Fix.Note.ZH} {
			if strings.Contains(txt, "%!") {
				t.Errorf("%s: bad format: %q", res.Component, txt)
			}
		}
	}
	return r
}

// find returns the result whose component contains sub.
func find(t *testing.T, r *PathReport, sub string) *Result {
	t.Helper()
	for i := range r.Results {
		if strings.Contains(r.Results[i].Component, sub) {
			return &r.Results[i]
		}
	}
	var names []string
	for _, x := range r.Results {
		names = append(names, string(x.Verdict)+" "+x.Component+" @ "+x.Path)
	}
	t.Fatalf("no result for %q; have:\n%s", sub, strings.Join(names, "\n"))
	return nil
}

func hasEvidence(res *Result, value, source string) bool {
	for _, e := range res.Finding.Evidence {
		if strings.Contains(e.Value, value) && strings.Contains(e.Source, source) {
			return true
		}
	}
	return false
}

// fatJar is a Spring Boot-style executable jar: nested jars stored in
// BOOT-INF/lib, application classes in BOOT-INF/classes.
func fatJar(t testing.TB) []byte {
	x86, arm := elfFixture(t, "x86_64"), elfFixture(t, "aarch64")
	both := buildZip(t,
		zent{name: "META-INF/maven/com.acme/both/pom.properties", data: pomProps("com.acme", "both", "1.0")},
		zent{name: "lib/linux-x86-64/libboth.so", data: x86},
		zent{name: "lib/linux-aarch64/libboth.so", data: arm},
	)
	x86only := buildZip(t,
		zent{name: "META-INF/maven/com.acme/x86only/pom.properties", data: pomProps("com.acme", "x86only", "2.0")},
		zent{name: "lib/linux-x86-64/libx86only.so", data: x86},
	)
	rocks := buildZip(t,
		zent{name: "META-INF/maven/org.rocksdb/rocksdbjni/pom.properties", data: pomProps("org.rocksdb", "rocksdbjni", "6.0.1")},
		zent{name: "librocksdbjni-linux64.so", data: x86},
	)
	leveldb := buildZip(t,
		zent{name: "META-INF/maven/org.fusesource.leveldbjni/leveldbjni-all/pom.properties", data: pomProps("org.fusesource.leveldbjni", "leveldbjni-all", "1.8")},
		zent{name: "META-INF/native/linux64/libleveldbjni.so", data: x86},
	)
	pure := buildZip(t, zent{name: "com/acme/Pure.class", data: classFile("com/acme/Pure", "", false, nil)})
	return buildZip(t,
		zent{name: "META-INF/MANIFEST.MF", data: []byte("Manifest-Version: 1.0\nMain-Class: org.springframework.boot.loader.JarLauncher\n")},
		zent{name: "BOOT-INF/classes/com/acme/Loader.class", data: classFile("com/acme/Loader", "acme", true, nil)},
		zent{name: "BOOT-INF/classes/com/acme/UsesBoth.class", data: classFile("com/acme/UsesBoth", "both", false, nil)},
		zent{name: "BOOT-INF/lib/both-1.0.jar", data: both, stored: true},
		zent{name: "BOOT-INF/lib/x86only-2.0.jar", data: x86only, stored: true},
		zent{name: "BOOT-INF/lib/rocksdbjni-6.0.1.jar", data: rocks}, // deflated: read into memory
		zent{name: "BOOT-INF/lib/leveldbjni-all-1.8.jar", data: leveldb, stored: true},
		zent{name: "BOOT-INF/lib/pure-1.0.jar", data: pure, stored: true},
	)
}

func TestScanFatJar(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "app.jar", fatJar(t))
	r := scanPath(t, p, Options{})
	if r.Jars != 6 || r.Natives != 5 {
		t.Errorf("jars=%d natives=%d, want 6 and 5", r.Jars, r.Natives)
	}
	both := find(t, r, "com.acme:both:1.0")
	if both.Verdict != Pass || !hasEvidence(both, "ELF64 LSB DYN aarch64 (EM_AARCH64)", "app.jar!/BOOT-INF/lib/both-1.0.jar!/lib/linux-aarch64/libboth.so") {
		t.Errorf("both: %s %+v", both.Verdict, both.Finding.Evidence)
	}
	x := find(t, r, "com.acme:x86only:2.0")
	if x.Verdict != Blocker || !hasEvidence(x, "x86_64 (EM_X86_64), needs GLIBC_2.25", "app.jar!/BOOT-INF/lib/x86only-2.0.jar!/lib/linux-x86-64/libx86only.so") {
		t.Errorf("x86only: %s %+v", x.Verdict, x.Finding.Evidence)
	}
	rocks := find(t, r, "org.rocksdb:rocksdbjni")
	if rocks.Verdict != Upgrade || rocks.Suggest != "6.4.6" {
		t.Errorf("rocksdb: %s suggest %q", rocks.Verdict, rocks.Suggest)
	}
	lv := find(t, r, "leveldbjni-all")
	if lv.Verdict != Blocker || !strings.Contains(lv.Suggest, "org.openlabtesting") {
		t.Errorf("leveldbjni: %s %q", lv.Verdict, lv.Suggest)
	}
	// BOOT-INF/classes: Loader loads "acme" (not bundled) -> to confirm; the
	// fat jar's own component names the library.
	app := find(t, r, "app.jar")
	if app.Verdict != Confirm || !strings.Contains(app.Finding.Title.EN, "acme") || strings.Contains(app.Finding.Title.EN, "both") {
		t.Errorf("app classes: %s %q", app.Verdict, app.Finding.Title.EN)
	}
	for _, res := range r.Results {
		if strings.Contains(res.Component, "pure") {
			t.Errorf("pure-Java jar reported: %+v", res)
		}
	}
}

func TestScanMavenJars(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "lib/jna-5.13.0.jar", mavenJar(t, "net.java.dev.jna:jna:5.13.0"))
	writeFile(t, dir, "lib/snappy-java-1.0.4.1.jar", mavenJar(t, "org.xerial.snappy:snappy-java:1.0.4.1"))
	r := scanPath(t, dir, Options{})
	jna := find(t, r, "net.java.dev.jna:jna:5.13.0")
	if jna.Verdict != Pass || !hasEvidence(jna, "aarch64 (EM_AARCH64)", "com/sun/jna/linux-aarch64/libjnidispatch.so") {
		t.Errorf("jna: %s %+v", jna.Verdict, jna.Finding.Evidence)
	}
	sn := find(t, r, "org.xerial.snappy:snappy-java:1.0.4.1")
	if sn.Verdict != Upgrade || sn.Suggest != "1.1.7.2" || !hasEvidence(sn, "x86_64", "Linux/amd64/libsnappyjava.so") {
		t.Errorf("snappy: %s %q %+v", sn.Verdict, sn.Suggest, sn.Finding.Evidence)
	}
	if !strings.Contains(sn.Finding.Fix.Note.EN, "pure-Java") || !strings.Contains(sn.Finding.Fix.Note.ZH, "纯 Java") {
		t.Errorf("snappy fix should mention the fallback: %+v", sn.Finding.Fix.Note)
	}
}

func TestScanNettySplitArtifacts(t *testing.T) {
	classes := mavenJar(t, "io.netty:netty-transport-classes-epoll:4.1.100.Final")
	x86 := mavenJar(t, "io.netty:netty-transport-native-epoll:4.1.100.Final:jar:linux-x86_64")
	arm := mavenJar(t, "io.netty:netty-transport-native-epoll:4.1.100.Final:jar:linux-aarch_64")

	t.Run("pair", func(t *testing.T) {
		p := writeFile(t, t.TempDir(), "app.war", buildZip(t,
			zent{name: "WEB-INF/lib/netty-transport-classes-epoll-4.1.100.Final.jar", data: classes},
			zent{name: "WEB-INF/lib/netty-transport-native-epoll-4.1.100.Final-linux-x86_64.jar", data: x86},
			zent{name: "WEB-INF/lib/netty-transport-native-epoll-4.1.100.Final-linux-aarch_64.jar", data: arm},
		))
		r := scanPath(t, p, Options{})
		for _, res := range r.Results {
			if res.Verdict != Pass {
				t.Errorf("%s: %s %s", res.Component, res.Verdict, res.Finding.Title.EN)
			}
		}
		x := find(t, r, "netty-transport-native-epoll:4.1.100.Final:linux-x86_64")
		if !hasEvidence(x, "aarch64", "linux-aarch_64.jar!/META-INF/native/libnetty_transport_native_epoll_aarch_64.so") {
			t.Errorf("x86_64 classifier not judged with its aarch_64 sibling: %+v", x.Finding.Evidence)
		}
		find(t, r, "netty-transport-classes-epoll")
	})
	t.Run("x86 only", func(t *testing.T) {
		p := writeFile(t, t.TempDir(), "app.war", buildZip(t,
			zent{name: "WEB-INF/lib/netty-transport-classes-epoll-4.1.100.Final.jar", data: classes},
			zent{name: "WEB-INF/lib/netty-transport-native-epoll-4.1.100.Final-linux-x86_64.jar", data: x86},
		))
		r := scanPath(t, p, Options{})
		c := find(t, r, "netty-transport-classes-epoll")
		if c.Verdict != Upgrade || c.Suggest != "io.netty:netty-transport-native-epoll:4.1.100.Final:linux-aarch_64" {
			t.Errorf("classes jar: %s %q", c.Verdict, c.Suggest)
		}
		n := find(t, r, "netty-transport-native-epoll:4.1.100.Final:linux-x86_64")
		if n.Verdict != Upgrade || n.Suggest != "io.netty:netty-transport-native-epoll:4.1.100.Final:linux-aarch_64" {
			t.Errorf("native jar: %s %q", n.Verdict, n.Suggest)
		}
	})
}

func TestScanInstallTree(t *testing.T) {
	dir := t.TempDir()
	x86 := elfFixture(t, "x86_64")
	writeFile(t, dir, "bin/start.sh", []byte("#!/bin/sh\nJAVA_OPTS=\"-Xmx4g -XX:UseAVX=2 -XX:+UseRTMLocking -XX:+UseG1GC\"\nexec java $JAVA_OPTS -jar app.jar\n"))
	writeFile(t, dir, "conf/jvm.options", []byte("-XX:UseSSE=4\n-XX:+IgnoreUnrecognizedVMOptions\n"))
	writeFile(t, dir, "Dockerfile", []byte("FROM --platform=linux/amd64 eclipse-temurin:17-jre\nCOPY . /app\n"))
	writeFile(t, dir, "docker/Dockerfile.alpine", []byte("FROM openjdk:8-jre-alpine\n"))
	writeFile(t, dir, "jdk/release", []byte("IMPLEMENTOR=\"Eclipse Adoptium\"\nJAVA_VERSION=\"1.8.0_282\"\nOS_ARCH=\"amd64\"\n"))
	writeFile(t, dir, "jdk/jre/lib/amd64/server/libjvm.so", x86)
	writeFile(t, dir, "jdk/jre/lib/amd64/libzip.so", x86)
	writeFile(t, dir, "jdk/jre/lib/rt.jar", buildZip(t, zent{name: "java/lang/Sys.class", data: classFile("java/lang/Sys", "zip", true, nil)}))
	writeFile(t, dir, "lib/native/libhadoop.so", x86)
	writeFile(t, dir, "lib/libcustom.so.1", x86)
	writeFile(t, dir, "lib/both/x86_64/libtwin.so", x86)
	writeFile(t, dir, "lib/both/aarch64/libtwin.so", elfFixture(t, "aarch64"))
	writeFile(t, dir, "bin/helper", x86) // extensionless executable
	writeFile(t, dir, "lib/broken.so", []byte("\x7fELF\x02\x01\x01garbage"))
	r := scanPath(t, dir, Options{})

	if v := find(t, r, "start.sh").Verdict; v != Blocker {
		t.Errorf("start.sh: %s", v)
	}
	sh := find(t, r, "start.sh")
	if !strings.Contains(sh.Finding.Title.EN, "UseAVX, UseRTMLocking") || sh.Finding.Fix.Apply == "" || sh.Finding.Fix.Revert == "" {
		t.Errorf("start.sh: %q fix %+v", sh.Finding.Title.EN, sh.Finding.Fix)
	}
	if v := find(t, r, "jvm.options").Verdict; v != Confirm {
		t.Errorf("jvm.options with IgnoreUnrecognizedVMOptions: %s", v)
	}
	if v := find(t, r, "Dockerfile:1").Verdict; v != Blocker {
		t.Errorf("Dockerfile: %s", v)
	}
	if v := find(t, r, "Dockerfile.alpine:1").Verdict; v != Confirm {
		t.Errorf("Dockerfile.alpine: %s", v)
	}
	j := find(t, r, "JDK 1.8.0_282")
	if j.Verdict != Blocker || !hasEvidence(j, "x86_64", "libjvm.so") {
		t.Errorf("jdk: %s %+v", j.Verdict, j.Finding.Evidence)
	}
	for _, res := range r.Results {
		if res.Component == "libzip.so" || res.Component == "rt.jar" {
			t.Errorf("JDK natives should fold into the JDK component: %+v", res)
		}
	}
	if h := find(t, r, "libhadoop.so"); h.Verdict != Upgrade || !strings.Contains(h.Suggest, "3.3.5") {
		t.Errorf("hadoop: %s %q", h.Verdict, h.Suggest)
	}
	if v := find(t, r, "libcustom.so.1").Verdict; v != Blocker {
		t.Errorf("libcustom: %s", v)
	}
	if v := find(t, r, "libtwin.so").Verdict; v != Pass {
		t.Errorf("libtwin: %s", v)
	}
	if v := find(t, r, "helper").Verdict; v != Blocker {
		t.Errorf("bin/helper: %s", v)
	}
	if b := find(t, r, "broken.so"); b.Verdict != Confirm || !strings.Contains(b.Finding.Title.EN, "corrupt") {
		t.Errorf("broken.so: %s %q", b.Verdict, b.Finding.Title.EN)
	}
}

func TestScanTarGzAndJDK8(t *testing.T) {
	arm := elfFixture(t, "aarch64")
	tgz := buildTarGz(t,
		tent{"app/jdk/release", []byte("JAVA_VERSION=\"1.8.0_272\"\nOS_ARCH=\"aarch64\"\n")},
		tent{"app/jdk/lib/aarch64/server/libjvm.so", arm},
		tent{"app/lib/app.jar", buildZip(t, zent{name: "lib/linux-x86-64/libfoo.so", data: elfFixture(t, "x86_64")})},
		tent{"app/bin/run.sh", []byte("java -XX:UseAVX=3 -jar lib/app.jar\n")},
	)
	p := writeFile(t, t.TempDir(), "bundle.tar.gz", tgz)
	r := scanPath(t, p, Options{})
	j := find(t, r, "JDK 1.8.0_272")
	if j.Verdict != Upgrade || j.Suggest != "1.8.0_292" {
		t.Errorf("jdk8u272 on aarch64: %s %q", j.Verdict, j.Suggest)
	}
	a := find(t, r, "app.jar")
	if a.Verdict != Blocker || !hasEvidence(a, "x86_64", "bundle.tar.gz!/app/lib/app.jar!/lib/linux-x86-64/libfoo.so") {
		t.Errorf("app.jar: %s %+v", a.Verdict, a.Finding.Evidence)
	}
	if run := find(t, r, "run.sh"); run.Verdict != Blocker || run.Finding.Fix.Apply != "" {
		t.Errorf("run.sh inside a tarball: %s, apply %q (no sed on an archive member)", run.Verdict, run.Finding.Fix.Apply)
	}
}

func TestScanTargetAmd64(t *testing.T) {
	p := writeFile(t, t.TempDir(), "a.jar", buildZip(t, zent{name: "linux-aarch64/libarm.so", data: elfFixture(t, "aarch64")}))
	tg, _ := ParseTarget("linux/amd64")
	r := scanPath(t, p, Options{Target: tg})
	if v := find(t, r, "a.jar").Verdict; v != Blocker {
		t.Errorf("aarch64-only library for target amd64: %s", v)
	}
}

func TestScanGlibcCheck(t *testing.T) {
	p := writeFile(t, t.TempDir(), "a.jar", buildZip(t, zent{name: "linux-aarch64/libarm.so", data: elfFixture(t, "aarch64")}))
	if v := find(t, scanPath(t, p, Options{Glibc: "2.17"}), "a.jar").Verdict; v != Confirm {
		t.Errorf("needs 2.25, target 2.17: %s", v)
	}
	if v := find(t, scanPath(t, p, Options{Glibc: "2.28"}), "a.jar").Verdict; v != Pass {
		t.Errorf("needs 2.25, target 2.28: %s", v)
	}
}

func TestScanHostileArchives(t *testing.T) {
	dir := t.TempDir()
	zeros := bytes.Repeat([]byte{0}, 4<<20)
	bomb := writeFile(t, dir, "bomb.jar", buildZip(t,
		zent{name: "big.so", data: zeros},
		zent{name: "inner.jar", data: buildZip(t, zent{name: "x.class", data: zeros})},
	))
	r := scanPath(t, bomb, Options{Limits: archive.Limits{MaxEntry: 1 << 20, MaxRead: 1 << 20}})
	n := 0
	for _, res := range r.Results {
		if res.Kind == "archive" && res.Component == string(archive.Limit) {
			n++
		}
	}
	if n != 2 {
		t.Errorf("want 2 limit findings, got %d: %+v", n, r.Results)
	}

	// Nesting deeper than the cap.
	inner := buildZip(t, zent{name: "a.so", data: elfFixture(t, "x86_64")})
	for i := 0; i < 4; i++ {
		inner = buildZip(t, zent{name: "n.jar", data: inner, stored: true})
	}
	deep := writeFile(t, dir, "deep.jar", inner)
	r = scanPath(t, deep, Options{Limits: archive.Limits{MaxDepth: 2}})
	if res := find(t, r, string(archive.Limit)); !strings.Contains(res.Finding.Evidence[0].Value, "nested deeper") {
		t.Errorf("depth: %+v", res.Finding.Evidence)
	}

	// Total budget across entries.
	many := writeFile(t, dir, "many.jar", buildZip(t,
		zent{name: "a.jar", data: buildZip(t, zent{name: "1.txt", data: zeros})},
		zent{name: "b.jar", data: buildZip(t, zent{name: "2.txt", data: zeros})},
		zent{name: "c.jar", data: buildZip(t, zent{name: "3.txt", data: zeros})},
	))
	r = scanPath(t, many, Options{Limits: archive.Limits{MaxTotal: 1 << 10}})
	if res := find(t, r, string(archive.Limit)); !strings.Contains(res.Finding.Evidence[0].Value, "total") {
		t.Errorf("total: %+v", res.Finding.Evidence)
	}

	// Path traversal names are reported, never written.
	slip := writeFile(t, dir, "slip.zip", buildZip(t,
		zent{name: "../../etc/evil.so", data: elfFixture(t, "x86_64")},
		zent{name: "/abs/evil.sh", data: []byte("x")},
	))
	r = scanPath(t, slip, Options{})
	if res := find(t, r, string(archive.UnsafeName)); res.Verdict != Confirm {
		t.Errorf("slip: %+v", res)
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "..", "..", "etc", "evil.so")); len(matches) > 0 {
		t.Fatal("a file was written outside the temp folder")
	}

	// Truncated archives: the PATH itself is an error, a nested one a finding.
	whole := fatJar(t)
	trunc := writeFile(t, dir, "trunc.jar", whole[:len(whole)/2])
	r = scanPath(t, trunc, Options{})
	if r.Error == "" {
		t.Error("truncated top-level jar: no error")
	}
	nested := writeFile(t, dir, "outer.jar", buildZip(t, zent{name: "lib/cut.jar", data: whole[:len(whole)/3], stored: true}))
	r = scanPath(t, nested, Options{})
	if res := find(t, r, string(archive.Unreadable)); !strings.Contains(res.Path, "outer.jar!/lib/cut.jar") || r.Error != "" {
		t.Errorf("nested truncated: %+v (error %q)", res, r.Error)
	}
	tgz := buildTarGz(t, tent{"a/lib/libx.so", elfFixture(t, "x86_64")})
	ttrunc := writeFile(t, dir, "cut.tar.gz", tgz[:len(tgz)-40])
	r = scanPath(t, ttrunc, Options{})
	find(t, r, string(archive.Unreadable))
}

func TestScanMissingPath(t *testing.T) {
	if _, err := Scan(context.Background(), filepath.Join(t.TempDir(), "nope"), Options{}); err == nil {
		t.Error("missing PATH: no error")
	}
}

func TestScanVerdictPaths(t *testing.T) {
	x86 := elfFixture(t, "x86_64")
	loader, err := os.ReadFile(filepath.Join("classfile", "testdata", "Loader.class"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	jar := func(name string, ents ...zent) { writeFile(t, dir, "lib/"+name, buildZip(t, ents...)) }
	jar("netty-transport-native-kqueue-4.1.100.Final-osx-x86_64.jar",
		zent{name: "META-INF/maven/io.netty/netty-transport-native-kqueue/pom.properties", data: pomProps("io.netty", "netty-transport-native-kqueue", "4.1.100.Final")},
		zent{name: "io/netty/channel/kqueue/Native.class", data: classFile("io/netty/channel/kqueue/Native", "netty_transport_native_kqueue", true, nil)})
	jar("netty-transport-classes-epoll-4.1.100.Final.jar",
		zent{name: "META-INF/maven/io.netty/netty-transport-classes-epoll/pom.properties", data: pomProps("io.netty", "netty-transport-classes-epoll", "4.1.100.Final")})
	jar("sqlite-jdbc-3.30.1.jar",
		zent{name: "META-INF/maven/org.xerial/sqlite-jdbc/pom.properties", data: pomProps("org.xerial", "sqlite-jdbc", "3.30.1")},
		zent{name: "org/sqlite/native/Linux/x86_64/libsqlitejdbc.so", data: x86})
	jar("zstd-jni-1.1.0.jar") // no pom.properties: identified by its file name
	jar("legacy-1.0.jar", zent{name: "Loader.class", data: loader})
	writeFile(t, dir, "jdk-17/release", []byte("JAVA_VERSION=\"17.0.9\"\nOS_ARCH=\"aarch64\"\n"))
	r := scanPath(t, dir, Options{})
	for sub, want := range map[string]Verdict{
		"netty-transport-native-kqueue": Pass,
		"netty-transport-classes-epoll": Confirm,
		"sqlite-jdbc":                   Blocker,
		"zstd-jni":                      Upgrade,
		"legacy-1.0.jar":                Confirm,
		"JDK 17.0.9":                    Pass,
	} {
		if got := find(t, r, sub); got.Verdict != want {
			t.Errorf("%s: %s (%s), want %s", sub, got.Verdict, got.Finding.Title.EN, want)
		}
	}
	l := find(t, r, "legacy")
	if !strings.Contains(l.Finding.Title.EN, "/opt/acme/libacme-x86_64.so, acme") || !hasEvidence(l, "<computed name>", "legacy-1.0.jar!/Loader.class") {
		t.Errorf("legacy: %q %+v", l.Finding.Title.EN, l.Finding.Evidence)
	}
	if z := find(t, r, "zstd-jni"); z.Suggest != "1.2.0" || !strings.Contains(z.Finding.Fix.Note.EN, "com.github.luben:zstd-jni") {
		t.Errorf("zstd: %+v", z)
	}
}

func FuzzScanReader(f *testing.F) {
	f.Add("app.jar", fatJar(f))
	f.Add("b.tar.gz", buildTarGz(f, tent{"a/jdk/release", []byte("JAVA_VERSION=\"1.8.0_1\"\nOS_ARCH=\"amd64\"\n")},
		tent{"a/bin/run.sh", []byte("java -XX:UseAVX=2\n")}, tent{"a/lib/x.so", elfFixture(f, "x86_64")}))
	lim := archive.Limits{MaxEntry: 8 << 20, MaxTotal: 32 << 20, MaxDepth: 4, MaxRead: 4 << 20}
	f.Fuzz(func(t *testing.T, name string, b []byte) {
		r, err := ScanReader(context.Background(), name, archive.Bytes(b), int64(len(b)), Options{Limits: lim})
		if err != nil || r == nil {
			t.Fatalf("ScanReader: %v", err)
		}
	})
}

func TestScanImageTarball(t *testing.T) {
	x86 := elfFixture(t, "x86_64")
	noise := make([]byte, 16<<10)
	for i := range noise {
		noise[i] = byte(i * 7919 >> 3)
	}
	layer := buildTarGz(t,
		tent{"opt/java/openjdk/release", []byte("JAVA_VERSION=\"17.0.9\"\nOS_ARCH=\"x86_64\"\n")},
		tent{"opt/java/openjdk/lib/server/libjvm.so", x86},
		tent{"app/app.jar", buildZip(t, zent{name: "lib/linux-x86-64/libz.so", data: x86})},
		tent{"app/noise.bin", noise},
	)
	img := buildTarGz(t,
		tent{"oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)},
		tent{"index.json", []byte(`{"schemaVersion":2,"manifests":[]}`)},
		tent{"manifest.json", []byte(`[{"Config":"blobs/sha256/c0ffee","Layers":["blobs/sha256/1a7e2"]}]`)},
		tent{"blobs/sha256/c0ffee", []byte(`{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]}}`)},
		tent{"blobs/sha256/1a7e2", layer},
		tent{"3f2a.json", []byte(`{"architecture":"arm64","os":"linux","variant":"v8","rootfs":{"type":"layers"}}`)},
	)
	p := writeFile(t, t.TempDir(), "image.tar", img)
	r := scanPath(t, p, Options{})
	if v := find(t, r, "image linux/amd64").Verdict; v != Blocker {
		t.Errorf("amd64 config: %s", v)
	}
	if v := find(t, r, "image linux/arm64/v8").Verdict; v != Pass {
		t.Errorf("arm64 config: %s", v)
	}
	j := find(t, r, "JDK 17.0.9")
	if j.Verdict != Blocker || !strings.Contains(j.Path, "image.tar!/blobs/sha256/1a7e2!/opt/java/openjdk") {
		t.Errorf("JDK in a layer: %s at %s", j.Verdict, j.Path)
	}
	if a := find(t, r, "app.jar"); a.Verdict != Blocker {
		t.Errorf("app.jar in a layer: %s", a.Verdict)
	}
}

// Two copies of a library that bundles its natives in its own jar: the old
// one loads its own x86-only build, so a newer copy next to it does not help.
func TestScanOwnNativesNotShared(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "lib/snappy-java-1.0.4.1.jar", buildZip(t,
		zent{name: "META-INF/maven/org.xerial.snappy/snappy-java/pom.properties", data: pomProps("org.xerial.snappy", "snappy-java", "1.0.4.1")},
		zent{name: "org/xerial/snappy/native/Linux/amd64/libsnappyjava.so", data: elfFixture(t, "x86_64")}))
	writeFile(t, dir, "lib/snappy-java-1.1.10.5.jar", buildZip(t,
		zent{name: "META-INF/maven/org.xerial.snappy/snappy-java/pom.properties", data: pomProps("org.xerial.snappy", "snappy-java", "1.1.10.5")},
		zent{name: "org/xerial/snappy/native/Linux/x86_64/libsnappyjava.so", data: elfFixture(t, "x86_64")},
		zent{name: "org/xerial/snappy/native/Linux/aarch64/libsnappyjava.so", data: elfFixture(t, "aarch64")}))
	r := scanPath(t, dir, Options{})
	if v := find(t, r, "snappy-java:1.0.4.1").Verdict; v != Upgrade {
		t.Errorf("old copy: %s", v)
	}
	if v := find(t, r, "snappy-java:1.1.10.5").Verdict; v != Pass {
		t.Errorf("new copy: %s", v)
	}
}

// A renamed jar without pom.properties is still known by its manifest.
func TestScanManifestIdentity(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "lib/jna.jar", buildZip(t,
		zent{name: "META-INF/MANIFEST.MF", data: []byte("Manifest-Version: 1.0\r\nImplementation-Version: 4.1.0 (b0)\r\nBundle-SymbolicName: com.sun.jna\r\n\r\n")},
		zent{name: "com/sun/jna/linux-x86-64/libjnidispatch.so", data: elfFixture(t, "x86_64")}))
	r := scanPath(t, dir, Options{})
	res := find(t, r, "net.java.dev.jna:jna:4.1.0")
	if res.Verdict != Upgrade || res.Version != "4.1.0" {
		t.Errorf("%s %q", res.Verdict, res.Version)
	}
}

// ScanAll: every path in one report, in order; a path that cannot be
// opened is kept with its error and named by Unreadable, the others
// scanned; a cancelled context ends it with its error.
func TestScanAll(t *testing.T) {
	tg, err := ParseTarget("linux/arm64")
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "gone.jar")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	rep, err := ScanAll(context.Background(), []string{"testdata/elf", missing}, Options{Target: tg}, "v1", now)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Paths) != 2 || rep.Paths[0].Path != "testdata/elf" || rep.Paths[0].Error != "" || len(rep.Paths[0].Results) == 0 {
		t.Fatalf("paths: %+v", rep.Paths)
	}
	if u := rep.Unreadable(); len(u) != 1 || !strings.HasPrefix(u[0], missing+": ") {
		t.Errorf("unreadable: %q", u)
	}
	if rep.Target != "linux/arm64" || rep.Version != "v1" || !rep.Time.Equal(now) || rep.Time.Location() != time.UTC {
		t.Errorf("header: %s %s %v", rep.Target, rep.Version, rep.Time)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ScanAll(ctx, []string{"testdata/elf"}, Options{Target: tg}, "v1", now); err == nil {
		t.Error("cancelled: no error")
	}
}
