package stacks

import "strings"

// javaTypeName turns a class name as JFR stores it into the name a Java
// programmer reads: "java/lang/String" -> "java.lang.String", array
// descriptors "[B" -> "byte[]", "[[Ljava/lang/Object;" -> "java.lang.Object[][]",
// and a hidden class's address dropped ("Foo$$Lambda/0x0000000801234" ->
// "Foo$$Lambda"), so one lambda's allocations are one frame across runs.
func javaTypeName(s string) string {
	dims := 0
	for dims < len(s) && s[dims] == '[' {
		dims++
	}
	base := s[dims:]
	if dims > 0 {
		if prim, ok := primitiveDescriptors[base]; ok {
			base = prim
		} else if strings.HasPrefix(base, "L") && strings.HasSuffix(base, ";") {
			base = base[1 : len(base)-1]
		} else {
			return strings.ReplaceAll(s, "/", ".") // not a descriptor: leave it as it was
		}
	}
	// JDK 21+: "Foo$$Lambda/0x...", JDK 15-20: "Foo$$Lambda$14/0x...".
	if i := strings.Index(base, "$$Lambda"); i >= 0 {
		if j := strings.Index(base[i:], "/0x"); j >= 0 {
			base = base[:i+j]
		}
		if j := strings.Index(base[i:], "+0x"); j >= 0 {
			base = base[:i+j]
		}
	}
	return strings.ReplaceAll(base, "/", ".") + strings.Repeat("[]", dims)
}

// primitiveDescriptors are the JVM's one-letter field descriptors.
var primitiveDescriptors = map[string]string{
	"B": "byte", "C": "char", "D": "double", "F": "float",
	"I": "int", "J": "long", "S": "short", "Z": "boolean",
}

// TypeName is javaTypeName for a class named elsewhere (a thread dump's
// lock class), so it reads as the same class JFR's events name.
func TypeName(s string) string { return javaTypeName(s) }
