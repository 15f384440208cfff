package jvmopts

// Version strings as found in JAVA_HOME/release (JAVA_VERSION="1.8.0_342"),
// java -version ("17.0.15"), or install paths:
//
//	1.8.0_342   17.0.15   21   11.0.2+9   25-ea   bisheng-jdk1.8.0_342   java-17-openjdk-amd64

// MajorVersion returns the Java feature release of a version string:
// "1.8.0_342" -> 8, "17.0.15" -> 17, "21" -> 21. It reads the first number
// in s, so install-directory names work too ("jdk1.8.0_181" -> 8,
// "java-17-openjdk" -> 17). It returns 0 when s holds no number.
func MajorVersion(s string) int {
	i := 0
	for i < len(s) && (s[i] < '0' || s[i] > '9') {
		i++
	}
	n, j := readInt(s, i)
	if j == i {
		return 0
	}
	if n == 1 && j+1 < len(s) && s[j] == '.' {
		// Legacy "1.x" numbering (JDK 8 and older).
		if m, k := readInt(s, j+1); k > j+1 {
			return m
		}
	}
	return n
}

func readInt(s string, i int) (int, int) {
	n := 0
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		if n > 1<<20 {
			break
		}
		n = n*10 + int(s[j]-'0')
		j++
	}
	return n, j
}

// serverClassMemory is HotSpot's is_server_class_machine threshold: 2 GB
// less 256 MB "missing" memory that firmware or the kernel may hold back.
const serverClassMemory = 2<<30 - 256<<20

// DefaultGC returns the collector HotSpot's ergonomics picks when none is
// chosen on the command line, for a JVM of the given version seeing cpus
// processors and memBytes of physical memory (pass the container limits for
// JDKs that honour them: 8u191+, 10+):
//
//   - JDK 5-8: "Parallel" on a server-class machine (>= 2 CPUs and >= 2 GB,
//     HotSpot allowing 256 MB slack), else "Serial".
//   - JDK 9+: "G1" on a server-class machine, else "Serial".
//
// It returns "" when the version, CPU count or memory is unknown (<= 0).
func DefaultGC(version string, cpus int, memBytes int64) string {
	major := MajorVersion(version)
	if major <= 0 || cpus <= 0 || memBytes <= 0 {
		return ""
	}
	server := cpus >= 2 && memBytes >= serverClassMemory
	switch {
	case !server:
		return "Serial"
	case major <= 8:
		return "Parallel"
	default:
		return "G1"
	}
}
