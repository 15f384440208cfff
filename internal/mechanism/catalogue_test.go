package mechanism

import "testing"

func TestCatalogueIsValid(t *testing.T) {
	if err := Validate(Catalogue()); err != nil {
		t.Fatal(err)
	}
}

func TestFirstAppSkipsLibrariesAndGeneratedFrames(t *testing.T) {
	st := []Frame{{Method: "java.util.regex.Pattern$Loop.match"}, {Method: "org.springframework.web.X.y"},
		{Method: "com.acme.Foo$$Lambda$12.apply"}, {Method: "com.acme.Validator.check", Line: 42}, {Method: "com.acme.Api.post", Line: 7}}
	if f, ok := FirstApp(st); !ok || f.String() != "com.acme.Validator.check:42" {
		t.Fatalf("got %v %v", f, ok)
	}
	if _, ok := FirstApp(st[:3]); ok {
		t.Fatal("library-only stack has no application frame")
	}
}
