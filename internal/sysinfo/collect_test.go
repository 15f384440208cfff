package sysinfo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

var fixedNow = func() time.Time { return time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) }

// collect runs Collect and fails the test on any recovered collector panic.
func collect(t testing.TB, h hostfs.FS) *Facts {
	t.Helper()
	return Collect(h, Options{Now: fixedNow, OnPanic: func(area string, v any, stack []byte) {
		t.Errorf("collector %s panicked: %v\n%s", area, v, stack)
	}})
}

// fieldStates walks every Field in v and reports name -> OK, with its Err.
func fieldStates(v any) map[string]Field[string] {
	out := map[string]Field[string]{}
	var walk func(name string, rv reflect.Value)
	walk = func(name string, rv reflect.Value) {
		switch rv.Kind() {
		case reflect.Pointer:
			if !rv.IsNil() {
				walk(name, rv.Elem())
			}
		case reflect.Map:
			if rv.Type().Elem().Kind() == reflect.Struct {
				for _, k := range rv.MapKeys() {
					walk(name+"["+k.String()+"]", rv.MapIndex(k))
				}
			}
		case reflect.Struct:
			if strings.HasPrefix(rv.Type().Name(), "Field[") {
				out[name] = Field[string]{OK: rv.FieldByName("OK").Bool(), Err: rv.FieldByName("Err").String(), Source: rv.FieldByName("Source").String()}
				return
			}
			for i := 0; i < rv.NumField(); i++ {
				if rv.Type().Field(i).IsExported() {
					walk(name+"."+rv.Type().Field(i).Name, rv.Field(i))
				}
			}
		}
	}
	walk("Facts", reflect.ValueOf(v))
	return out
}

func TestCollectLive(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("no /proc")
	}
	f := collect(t, hostfs.Live())
	if !f.Live {
		t.Error("Live = false")
	}
	if !f.Kernel.Release.OK || f.Kernel.Release.Value == "" {
		t.Errorf("kernel release: %+v", f.Kernel.Release)
	}
	if !f.CPU.Logical.OK || f.CPU.Logical.Value < 1 {
		t.Errorf("logical CPUs: %+v", f.CPU.Logical)
	}
	if !f.Memory.Meminfo.OK || f.Memory.Meminfo.Value["MemTotal"] <= 0 {
		t.Errorf("meminfo: %+v", f.Memory.Meminfo)
	}
	if !f.Sysctl["vm.swappiness"].OK {
		t.Errorf("vm.swappiness: %+v", f.Sysctl["vm.swappiness"])
	}
	if testing.Verbose() {
		b, _ := json.MarshalIndent(f, "", "  ")
		os.WriteFile(filepath.Join(t.TempDir(), "facts.json"), b, 0o644)
		if os.Getenv("SYSINFO_DUMP") != "" {
			os.WriteFile(os.Getenv("SYSINFO_DUMP"), b, 0o644)
		}
		for name, st := range fieldStates(f) {
			if !st.OK {
				t.Logf("unavailable %s: %s", name, st.Err)
			}
		}
	}
}

func TestCollectEmptyTree(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"proc", "sys", "etc"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	for _, h := range []hostfs.FS{hostfs.Under(dir), hostfs.Under(filepath.Join(dir, "nonexistent"))} {
		f := collect(t, h)
		assertAllUnavailable(t, f)
	}
}

func assertAllUnavailable(t *testing.T, f *Facts) {
	t.Helper()
	states := fieldStates(f)
	if len(states) < 50 {
		t.Fatalf("walked only %d fields", len(states))
	}
	for name, st := range states {
		if st.OK {
			t.Errorf("%s is OK (source %s), want unavailable", name, st.Source)
		} else if st.Err == "" {
			t.Errorf("%s unavailable without a reason", name)
		}
	}
}

func TestExplainUnset(t *testing.T) {
	f := &Facts{Sysctl: map[string]Field[string]{"vm.swappiness": {}, "vm.max_map_count": Got("65530", "/proc/sys/vm/max_map_count")}}
	f.Kernel.Release = Got("6.1", "/proc/sys/kernel/osrelease")
	explainUnset(reflect.ValueOf(f).Elem(), "not collected")
	st := fieldStates(f)
	for name, s := range st {
		if !s.OK && s.Err != "not collected" {
			t.Errorf("%s: err %q", name, s.Err)
		}
	}
	if !st["Facts.Kernel.Release"].OK || !st["Facts.Sysctl[vm.max_map_count]"].OK || st["Facts.Sysctl[vm.swappiness]"].Err != "not collected" {
		t.Errorf("states %+v", st)
	}
}
