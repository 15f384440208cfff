package porting

import (
	"reflect"
	"testing"
)

func TestFamilyKey(t *testing.T) {
	for _, tc := range [][2]string{
		{"com/sun/jna/linux-x86-64/libjnidispatch.so", "com/sun/jna/linux-aarch64/libjnidispatch.so"},
		{"META-INF/native/libnetty_transport_native_epoll_x86_64.so", "META-INF/native/libnetty_transport_native_epoll_aarch_64.so"},
		{"org/xerial/snappy/native/Linux/x86_64-musl/libsnappyjava.so", "org/xerial/snappy/native/Linux/aarch64/libsnappyjava.so"},
		{"org/xerial/snappy/native/Linux/amd64/libsnappyjava.so", "org/xerial/snappy/native/Linux/i386/libsnappyjava.so"},
		{"librocksdbjni-linux64.so", "librocksdbjni-linux-aarch64.so"},
		{"jni/x86_64-Linux/libjffi-1.2.so", "jni/aarch64-Linux/libjffi-1.2.so"},
		{"linux/amd64/libzstd-jni-1.5.5-5.so", "linux/aarch64/libzstd-jni-1.5.5-5.so"},
		{"net/jpountz/util/linux/amd64/liblz4-java.so", "net/jpountz/util/linux/aarch64/liblz4-java.so"},
		{"org/fusesource/jansi/internal/native/Linux/x86_64/libjansi.so", "org/fusesource/jansi/internal/native/Linux/arm64/libjansi.so"},
		{"META-INF/native/libconscrypt_openjdk_jni-linux-x86_64.so", "META-INF/native/libconscrypt_openjdk_jni-linux-aarch_64.so"},
		{"com/sun/jna/linux-ppc/libjnidispatch.so", "com/sun/jna/linux-armel/libjnidispatch.so"},
	} {
		if a, b := FamilyKey(tc[0]), FamilyKey(tc[1]); a != b {
			t.Errorf("%s -> %s\n%s -> %s", tc[0], a, tc[1], b)
		}
	}
	// Different libraries stay apart; "x86" inside a word is not a token.
	if FamilyKey("lib/libfoo.so") == FamilyKey("lib/libbar.so") || FamilyKey("libx86emu.so") != "libx86emu.so" {
		t.Error("unrelated names grouped")
	}
}

func TestForOtherOS(t *testing.T) {
	for name, want := range map[string]bool{
		"com/sun/jna/sunos-x86-64/libjnidispatch.so":               true,
		"com/sun/jna/freebsd-aarch64/libjnidispatch.so":            true,
		"org/sqlite/native/Linux-Android/aarch64/libsqlitejdbc.so": true,
		"com/sun/jna/linux-x86-64/libjnidispatch.so":               false,
		"lib/libmac.so":     false,
		"lib/libfoo-osx.so": true,
	} {
		if got := ForOtherOS(name); got != want {
			t.Errorf("ForOtherOS(%s)=%v", name, got)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"4.1.100.Final", "4.1.55.Final", 1},
		{"4.1.50.Final", "4.1.50", 0},
		{"1.5.6-4", "1.5.6", 1},
		{"2.0.0-RC1", "2.0.0", -1},
		{"1.1.7.2", "1.1.10.5", -1},
		{"1.2", "1.2.0", 0},
		{"3.20.0", "3.8.11.2", 1},
		{"2.0.36.Final", "2.0.31.Final", 1},
	} {
		if got := CompareVersions(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareVersions(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestVersionOK(t *testing.T) {
	libs := Libraries()
	rocks := libraryByCoords(libs, "org.rocksdb:rocksdbjni")
	for v, want := range map[string]bool{"5.18.3": false, "5.18.4": true, "6.0.1": false, "6.4.6": true, "7.10.2": true, "5.7.3": false} {
		if got := rocks.VersionOK(v); got != want {
			t.Errorf("rocksdbjni %s: %v", v, got)
		}
	}
	jna := libraryByCoords(libs, "net.java.dev.jna:jna")
	if jna.VersionOK("4.1.0") || !jna.VersionOK("4.2.0") || !jna.VersionOK("5.13.0") {
		t.Error("jna table")
	}
	if l := libraryByNative(libs, "META-INF/native/libio_grpc_netty_shaded_netty_transport_native_epoll_x86_64.so"); l == nil || l.Name != "grpc-netty-shaded" {
		t.Errorf("shaded grpc epoll attributed to %+v", l)
	}
	for _, l := range libs {
		if len(l.Coords) == 0 || l.Source == "" {
			t.Errorf("library row without coordinates or source: %+v", l)
		}
		if len(l.Min) > 0 && l.Suggest == "" {
			t.Errorf("%s: a minimum without a suggestion", l.Name)
		}
	}
}

func TestParsers(t *testing.T) {
	c, ok := ParsePomProperties([]byte("#Created by Apache Maven\r\ngroupId=net.java.dev.jna\nartifactId=jna\nversion=5.13.0\n"))
	if !ok || c.String() != "net.java.dev.jna:jna:5.13.0" {
		t.Errorf("pom.properties: %v %v", c, ok)
	}
	if _, ok := ParsePomProperties([]byte("version=1\n")); ok {
		t.Error("pom.properties without coordinates accepted")
	}
	m := ParseManifest([]byte("Manifest-Version: 1.0\r\nBundle-NativeCode: META-INF/native/libnetty_transport_native_epoll_aarch\r\n _64.so; osname=Linux; processor=aarch64,*\r\n\r\nName: x\r\nA: b\r\n"))
	if m["Bundle-NativeCode"] != "META-INF/native/libnetty_transport_native_epoll_aarch_64.so; osname=Linux; processor=aarch64,*" || m["A"] != "" {
		t.Errorf("manifest: %q", m)
	}
	r := ParseRelease([]byte("IMPLEMENTOR=\"Eclipse Adoptium\"\nJAVA_VERSION=\"1.8.0_282\"\nOS_ARCH=\"amd64\"\n"))
	if r["JAVA_VERSION"] != "1.8.0_282" || r["OS_ARCH"] != "amd64" {
		t.Errorf("release: %v", r)
	}
	for name, want := range map[string][3]string{
		"netty-transport-native-epoll-4.1.100.Final-linux-x86_64.jar": {"netty-transport-native-epoll", "4.1.100.Final", "linux-x86_64"},
		"BOOT-INF/lib/snappy-java-1.0.4.1.jar":                        {"snappy-java", "1.0.4.1", ""},
		"spring-core-5.3.0-RC1.jar":                                   {"spring-core", "5.3.0-RC1", ""},
		"zstd-jni-1.5.5-5-linux_aarch64.jar":                          {"zstd-jni", "1.5.5-5", "linux_aarch64"},
		"app.jar":                                                     {"app", "", ""},
	} {
		a, v, c := coordsFromFileName(name)
		if got := [3]string{a, v, c}; got != want {
			t.Errorf("%s: %v want %v", name, got, want)
		}
	}
	if u, ok := jdk8Update("1.8.0_292-b10"); !ok || u != 292 {
		t.Errorf("jdk8Update: %d %v", u, ok)
	}
	if _, ok := jdk8Update("17.0.2"); ok {
		t.Error("17 is not JDK 8")
	}
	if root, ok := jdkRootOfLibjvm("opt/jdk8/jre/lib/amd64/server/libjvm.so"); !ok || root != "opt/jdk8/" {
		t.Errorf("jdk root %q", root)
	}
	if root, ok := jdkRootOfLibjvm("jre/lib/amd64/server/libjvm.so"); !ok || root != "jre/" {
		t.Errorf("JRE 8 root %q", root)
	}
	if root, ok := jdkRootOfLibjvm("lib/server/libjvm.so"); !ok || root != "" {
		t.Errorf("PATH is the JDK: root %q", root)
	}
	if root, ok := jdkRootOfLibjvm("jdk-17/lib/server/libjvm.so"); !ok || root != "jdk-17/" {
		t.Errorf("jdk root %q", root)
	}
}

func TestScanOptions(t *testing.T) {
	s := ScanOptions([]byte(`#!/bin/sh
JAVA_OPTS="-Xmx4g -XX:UseAVX=2 -XX:+UseRTMLocking"
# -XX:+UseG1GC -XX:-UseFastStosb
exec java -XX:+IgnoreUnrecognizedVMOptions $JAVA_OPTS
FROM amd64/openjdk:8
`), false)
	want := []FlagHit{{2, "-XX:UseAVX=2", "UseAVX"}, {2, "-XX:+UseRTMLocking", "UseRTMLocking"}, {3, "-XX:-UseFastStosb", "UseFastStosb"}}
	if !reflect.DeepEqual(s.Flags, want) || s.Ignore != 4 || len(s.Images) != 0 {
		t.Errorf("%+v", s)
	}
	d := ScanOptions([]byte("FROM --platform=linux/amd64 maven:3 AS build\nFROM amd64/eclipse-temurin:17\nfrom openjdk:8-jre-alpine\nFROM eclipse-temurin:17-jre\n"), true)
	if len(d.Images) != 3 || !d.Images[0].Blocker || !d.Images[1].Blocker || d.Images[2].Blocker || d.Images[2].Line != 3 {
		t.Errorf("%+v", d.Images)
	}
	for name, want := range map[string]bool{"bin/setenv.sh": true, "Dockerfile": true, "etc/app.service": true, "bin/catalina": true,
		"config/jvm.options": true, "README.md": false, "lib/x.jar": false} {
		if ok, _ := IsOptionsFileName(name); ok != want {
			t.Errorf("IsOptionsFileName(%s)=%v", name, ok)
		}
	}
}

func FuzzScanOptions(f *testing.F) {
	f.Add([]byte("JAVA_OPTS=\"-XX:UseAVX=2\"\nFROM --platform=linux/amd64 x\n"), true)
	f.Fuzz(func(t *testing.T, b []byte, docker bool) {
		ScanOptions(b, docker)
	})
}

func FuzzFamilyKey(f *testing.F) {
	f.Add("com/sun/jna/linux-x86-64/libjnidispatch.so")
	f.Fuzz(func(t *testing.T, s string) {
		FamilyKey(s)
		ForOtherOS(s)
		coordsFromFileName(s)
		CompareVersions(s, "1.2.3")
	})
}
