package porting

import (
	"bufio"
	"bytes"
	"strings"
)

// Identity files inside a jar and a JDK, parsed here.
//
// META-INF/maven/net.java.dev.jna/jna/pom.properties:
//
//	#Created by Apache Maven 3.8.6
//	groupId=net.java.dev.jna
//	artifactId=jna
//	version=5.13.0
//
// META-INF/MANIFEST.MF (72-byte lines, continuation lines start with a space):
//
//	Manifest-Version: 1.0
//	Implementation-Title: Netty/Transport/Native/Epoll
//	Implementation-Version: 4.1.100.Final
//	Bundle-NativeCode: META-INF/native/libnetty_transport_native_epoll_aarch
//	 _64.so; osname=Linux; processor=aarch64,*
//
// release (a JDK's top directory):
//
//	IMPLEMENTOR="Eclipse Adoptium"
//	JAVA_VERSION="1.8.0_282"
//	OS_ARCH="amd64"

// Coords is a Maven artifact identity.
type Coords struct {
	Group, Artifact, Version string
}

// GA is groupId:artifactId.
func (c Coords) GA() string { return c.Group + ":" + c.Artifact }

func (c Coords) String() string {
	if c.Version == "" {
		return c.GA()
	}
	return c.GA() + ":" + c.Version
}

// ParseProperties reads a Java .properties file: key=value or key: value,
// # and ! comments. Escapes and continuation lines are not needed for the
// files read here and are kept verbatim.
func ParseProperties(b []byte) map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || l[0] == '#' || l[0] == '!' {
			continue
		}
		i := strings.IndexAny(l, "=:")
		if i < 0 {
			continue
		}
		m[strings.TrimSpace(l[:i])] = strings.TrimSpace(l[i+1:])
	}
	return m
}

// ParsePomProperties returns the coordinates in a pom.properties file.
func ParsePomProperties(b []byte) (Coords, bool) {
	m := ParseProperties(b)
	c := Coords{Group: m["groupId"], Artifact: m["artifactId"], Version: m["version"]}
	return c, c.Group != "" && c.Artifact != ""
}

// ParseManifest reads the main section of a MANIFEST.MF, joining
// continuation lines.
func ParseManifest(b []byte) map[string]string {
	m := map[string]string{}
	var key string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		l := strings.TrimRight(sc.Text(), "\r")
		if l == "" {
			break // end of the main section
		}
		if l[0] == ' ' {
			if key != "" {
				m[key] += l[1:]
			}
			continue
		}
		i := strings.Index(l, ":")
		if i <= 0 {
			key = ""
			continue
		}
		key = l[:i]
		m[key] = strings.TrimSpace(l[i+1:])
	}
	return m
}

// ParseRelease reads a JDK release file (KEY="value" lines).
func ParseRelease(b []byte) map[string]string {
	m := ParseProperties(b)
	for k, v := range m {
		m[k] = strings.Trim(v, `"`)
	}
	return m
}

// coordsFromFileName guesses artifact and version from a jar name such as
// "netty-transport-native-epoll-4.1.100.Final-linux-x86_64.jar": the version
// starts at the first "-<digit>"; what follows the version after a "-" that
// starts with a letter is the classifier.
func coordsFromFileName(name string) (artifact, version, classifier string) {
	n := baseName(name)
	if i := strings.LastIndexByte(n, '.'); i > 0 {
		n = n[:i]
	}
	for i := 0; i+1 < len(n); i++ {
		if n[i] == '-' && n[i+1] >= '0' && n[i+1] <= '9' {
			artifact, rest := n[:i], n[i+1:]
			version = rest
			// Split a classifier: the first "-" followed by a letter, unless
			// it is a known qualifier kept as part of the version.
			for j := 0; j+1 < len(rest); j++ {
				if rest[j] == '-' && isLetter(rest[j+1]) {
					q := strings.ToLower(rest[j+1:])
					if isQualifier(q) {
						continue
					}
					version, classifier = rest[:j], rest[j+1:]
					break
				}
			}
			return artifact, version, classifier
		}
	}
	return n, "", ""
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func isQualifier(q string) bool {
	for _, p := range []string{"snapshot", "rc", "alpha", "beta", "m1", "m2", "m3", "final", "release", "ga", "cr", "sp"} {
		if strings.HasPrefix(q, p) {
			return true
		}
	}
	return false
}
