package porting

import (
	"strings"
)

// Native libraries name their platform in the path in many spellings; the
// family key replaces every architecture token with {arch} so that builds of
// one library for several platforms group together. Names only group
// candidates: the verdict comes from each file's ELF header.
//
//	com/sun/jna/linux-x86-64/libjnidispatch.so              (JNA)
//	com/sun/jna/linux-aarch64/libjnidispatch.so
//	META-INF/native/libnetty_transport_native_epoll_x86_64.so   (Netty)
//	META-INF/native/libnetty_transport_native_epoll_aarch_64.so
//	org/xerial/snappy/native/Linux/x86_64-musl/libsnappyjava.so (snappy-java)
//	org/xerial/snappy/native/Linux/aarch64/libsnappyjava.so
//	librocksdbjni-linux64.so  librocksdbjni-linux-aarch64.so    (RocksDB: linux64 is x86-64)
//	jni/x86_64-Linux/libjffi-1.2.so  jni/aarch64-Linux/libjffi-1.2.so (jffi)

// archTokens are the spellings seen in multi-arch jars, longest first.
var archTokens = []string{
	"x86_64", "x86-64", "amd64", "em64t", "x64",
	"aarch_64", "aarch64", "arm64", "armv8", "arm64-v8a",
	"ppc64le", "ppc64", "s390x", "riscv64", "loongarch64", "mips64el", "mips64", "sparcv9",
	"armv7l", "armv7", "armv6", "armhf", "armel", "arm",
	"i386", "i486", "i586", "i686", "x86", "x32",
	"ppcle", "ppc", "mipsel", "mips", "sparc", "s390", "riscv32", "loong64", "armv5", "arm32",
}

// libcTokens mark libc variants of one build; they do not split a family.
var libcTokens = []string{"-musl", "_musl", "-alpine"}

// FamilyKey returns the name with platform tokens replaced by {arch}, lower
// case: builds of one library for several platforms share it.
func FamilyKey(name string) string {
	n := strings.ToLower(name)
	for _, t := range libcTokens {
		n = strings.ReplaceAll(n, t, "")
	}
	// RocksDB: librocksdbjni-linux64.so (x86-64), -linux32.so, -linux-aarch64.so.
	n = strings.ReplaceAll(n, "linux64", "linux-{arch}")
	n = strings.ReplaceAll(n, "linux32", "linux-{arch}")
	var b strings.Builder
	for i := 0; i < len(n); {
		if i == 0 || isSep(n[i-1]) {
			matched := false
			for _, t := range archTokens {
				if strings.HasPrefix(n[i:], t) && (i+len(t) == len(n) || isSep(n[i+len(t)])) {
					b.WriteString("{arch}")
					i += len(t)
					matched = true
					break
				}
			}
			if matched {
				continue
			}
		}
		b.WriteByte(n[i])
		i++
	}
	return b.String()
}

func isSep(c byte) bool {
	return c == '/' || c == '-' || c == '_' || c == '.'
}

// baseName is the last path element.
func baseName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// IsNativeName reports whether an entry name looks like a Linux native
// library: foo.so, foo.so.1.2. Other files are sniffed for the ELF magic
// only in install trees, never inside jars.
func IsNativeName(name string) bool {
	n := strings.ToLower(baseName(name))
	return strings.HasSuffix(n, ".so") || strings.Contains(n, ".so.")
}

// otherOSTokens name operating systems whose ELF files a Linux JVM never
// loads (JNA ships sunos-, freebsd-, openbsd- builds next to linux- ones).
var otherOSTokens = map[string]bool{"sunos": true, "solaris": true, "freebsd": true, "openbsd": true, "netbsd": true,
	"dragonfly": true, "dragonflybsd": true, "aix": true, "darwin": true, "mac": true, "macos": true, "osx": true,
	"windows": true, "win32": true, "win64": true, "android": true, "hpux": true}

// ForOtherOS reports whether a native file's path says it is built for an
// OS other than Linux. The library's own name (the first word of the file
// name) is not looked at, so libmac.so stays a Linux library.
func ForOtherOS(name string) bool {
	n := strings.ToLower(name)
	base := baseName(n)
	dir := strings.TrimSuffix(n, base)
	if i := strings.IndexAny(base, "-_."); i >= 0 {
		base = base[i:]
	} else {
		base = ""
	}
	for _, tok := range strings.FieldsFunc(dir+" "+base, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if otherOSTokens[tok] {
			return true
		}
	}
	return false
}
