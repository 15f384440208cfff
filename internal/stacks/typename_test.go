package stacks

import "testing"

func TestJavaTypeName(t *testing.T) {
	for in, want := range map[string]string{
		"java/lang/String":                      "java.lang.String",
		"[B":                                    "byte[]",
		"[[I":                                   "int[][]",
		"[Ljava/lang/Object;":                   "java.lang.Object[]",
		"[[Ljava/util/HashMap$Node;":            "java.util.HashMap$Node[][]",
		"com/ex/Svc$$Lambda/0x000000080012c000": "com.ex.Svc$$Lambda",
		"com/ex/Svc$$Lambda$14/0x0000000800c01234": "com.ex.Svc$$Lambda$14",
		"[Lcom/ex/Svc$$Lambda/0x0000000800c0;":     "com.ex.Svc$$Lambda[]",
		"[Q":                                       "[Q", // not a descriptor: kept
		"":                                         "",
	} {
		if got := javaTypeName(in); got != want {
			t.Errorf("javaTypeName(%q) = %q, want %q", in, got, want)
		}
	}
}
