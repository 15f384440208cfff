package sample

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// Real files: a JDK 17 process (java-proc capture) and pid 1 of a
// Firecracker VM (its init, process_api).
func TestParseStatusReal(t *testing.T) {
	for _, c := range []struct {
		file  string
		name  string
		state byte
		tgid  int
		ppid  int
		nspid []int
		hwmKB uint64
		thr   int
		sig   uint64
	}{
		{"java-proc/tick-0/proc/6410/status", "java", 'S', 6410, 6408, []int{6410}, 76180, 26, 0x2000000101005ccf},
		{"procfiles/init-firecracker", "process_api", 'S', 1, 0, []int{1}, 23320, 13, 0x4e8},
	} {
		b, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		st, err := ParseStatus(b)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if st.Has != FieldsAll {
			t.Errorf("%s: missing fields %b", c.file, FieldsAll&^st.Has)
		}
		if st.Name != c.name || st.State != c.state || st.Tgid != c.tgid || st.Pid != c.tgid || st.PPid != c.ppid ||
			!slices.Equal(st.NSpid, c.nspid) || st.VmHWM != c.hwmKB<<10 || st.Threads != c.thr || st.SigCgt != c.sig ||
			st.UID != [4]int{0, 0, 0, 0} || st.GID != [4]int{0, 0, 0, 0} || st.CPUsAllowedList == "" || st.MemsAllowedList == "" {
			t.Errorf("%s: %+v", c.file, st)
		}
		// Every way of asking for fewer fields reads the same values.
		for _, want := range []StatusField{FieldVoluntaryCtxt | FieldNonvoluntaryCtxt, procMemory, FieldNSpid, FieldUid | FieldGid | FieldSigCgt} {
			var sel ProcStatus
			if err := sel.Parse(b, want); err != nil || sel.Has != want {
				t.Errorf("%s want %b: has %b, %v", c.file, want, sel.Has, err)
			}
			for f := StatusField(1); f&FieldsAll != 0; f <<= 1 {
				if want&f != 0 && fieldValue(&sel, f) != fieldValue(&st, f) {
					t.Errorf("%s %s: %s, all: %s", c.file, statusKeys[bitIndex(f)], fieldValue(&sel, f), fieldValue(&st, f))
				}
			}
		}
	}
}

func TestParseStatusSelf(t *testing.T) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	st, err := ParseStatus(b)
	if err != nil {
		t.Fatal(err)
	}
	comm, _ := os.ReadFile("/proc/self/comm")
	if st.Pid != os.Getpid() || st.Tgid != os.Getpid() || st.UID[1] != os.Geteuid() || st.GID[1] != os.Getegid() ||
		st.Name != strings.TrimSpace(string(comm)) || st.VmRSS == 0 || st.VmRSS > st.VmSize || st.Threads < 1 ||
		st.Has&FieldsAll&^(FieldRssAnon|FieldRssFile|FieldRssShmem) != FieldsAll&^(FieldRssAnon|FieldRssFile|FieldRssShmem) {
		t.Errorf("%+v", st)
	}
}

// Every form an old copy of this parser accepted, and what they refused.
func TestParseStatusForms(t *testing.T) {
	for _, c := range []struct {
		in    string
		check func(ProcStatus) bool
	}{
		// attach: effective ids, the innermost NSpid, SIGQUIT (3) caught.
		{"Name:\tjava\nState:\tS (sleeping)\nUid:\t1000\t65534\t65534\t65534\nGid:\t1000\t65533\t65533\t65533\nNSpid:\t18657\t1\nSigCgt:\t2000000101005ccd\n",
			func(s ProcStatus) bool {
				return s.UID[1] == 65534 && s.GID[1] == 65533 && slices.Equal(s.NSpid, []int{18657, 1}) && s.SigCgt&(1<<2) != 0 && s.State == 'S'
			}},
		{"State:\tZ (zombie)\nUid:\t0\t0\t0\t0\n", func(s ProcStatus) bool { return s.State == 'Z' && s.Has&FieldName == 0 }},
		{"State:\tt (tracing stop)\n", func(s ProcStatus) bool { return s.State == 't' }},
		// sysinfo: one Uid column, VmRSS with and without its unit, CPU lists.
		{"Name:\tjava\nUid:\t1000\nVmRSS:\t 2254388 kB\nThreads:\t213\nCpus_allowed_list:\t0-7\nMems_allowed_list:\t0-1\n",
			func(s ProcStatus) bool {
				return s.UID == [4]int{1000, -1, -1, -1} && s.VmRSS == 2254388<<10 && s.Threads == 213 && s.CPUsAllowedList == "0-7" && s.MemsAllowedList == "0-1"
			}},
		{"VmRSS:\t5\n", func(s ProcStatus) bool { return s.VmRSS == 5<<10 }},
		// samplers: the key on the first line, no final newline, CRLF.
		{"voluntary_ctxt_switches:\t353\nnonvoluntary_ctxt_switches:\t74", func(s ProcStatus) bool { return s.VoluntaryCtxt == 353 && s.NonvoluntaryCtxt == 74 }},
		{"VmSize:\t   48500 kB\r\nVmSwap:\t3 kB\r\n", func(s ProcStatus) bool { return s.VmSize == 48500<<10 && s.VmSwap == 3<<10 }},
		// The last line of a key counts; unknown keys and a colon in a value pass.
		{"Threads:\t1\nThreads:\t2\nSpeculationIndirectBranch:\tconditional enabled\nName:\ta:b\n", func(s ProcStatus) bool { return s.Threads == 2 && s.Name == "a:b" }},
		{"Groups:\t \nName:\tkworker/0:1H\n", func(s ProcStatus) bool { return s.Name == "kworker/0:1H" }},
	} {
		st, err := ParseStatus([]byte(c.in))
		if err != nil || !c.check(st) {
			t.Errorf("%q: %+v %v", c.in, st, err)
		}
	}
	for _, c := range []struct{ in, line string }{
		{"", "line 0"},
		{"Name:\tj\nThreads:\tx\n", "line 2"},
		{"no colon", "line 1"},
		{"Uid:\n", "line 1"},
		{"Uid:\t1 2 3 4 5\n", "line 1"},
		{"Name:\tj\nVmRSS:\t5 MB\n", "line 2"},
		{"VmRSS:\t99999999999999999999 kB\n", "line 1"},
		{"NSpid:\t12\t0\n", "line 1"},
		{"SigCgt:\tzz\n", "line 1"},
		{"Cpus_allowed_list:\t0-a\n", "line 1"},
		{"Name:\tj\x00\n", "line 1"},
		{"State:\t?\n", "line 1"},
	} {
		st, err := ParseStatus([]byte(c.in))
		if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), c.line+":") {
			t.Errorf("%q: %v, want an ErrParse at %s", c.in, err, c.line)
		}
		if strings.HasPrefix(c.in, "Name:\tj\n") && st.Name != "j" {
			t.Errorf("%q: the good line was not kept: %+v", c.in, st)
		}
	}
	// A wanted field only: the bad line elsewhere is not read.
	var st ProcStatus
	if err := st.Parse([]byte("Threads:\tx\nno colon\nVmRSS:\t4 kB\n"), FieldVmRSS); err != nil || st.VmRSS != 4<<10 || st.Has != FieldVmRSS {
		t.Errorf("%+v %v", st, err)
	}
	if err := st.Parse([]byte("Threads:\t1\nVmRSS:\tx kB\n"), FieldVmRSS); !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "line 2:") || st.Has != 0 {
		t.Errorf("%+v %v", st, err)
	}
}

func bitIndex(f StatusField) int {
	for i := range statusKeys {
		if f == 1<<i {
			return i
		}
	}
	return -1
}

// fieldValue prints one field of st, to compare two parses.
func fieldValue(st *ProcStatus, f StatusField) string {
	if st.Has&f == 0 {
		return "absent"
	}
	switch f {
	case FieldName:
		return st.Name
	case FieldState:
		return string(st.State)
	case FieldTgid:
		return fmt.Sprint(st.Tgid)
	case FieldPid:
		return fmt.Sprint(st.Pid)
	case FieldPPid:
		return fmt.Sprint(st.PPid)
	case FieldUid:
		return fmt.Sprint(st.UID)
	case FieldGid:
		return fmt.Sprint(st.GID)
	case FieldNSpid:
		return fmt.Sprint(st.NSpid)
	case FieldVmSize:
		return fmt.Sprint(st.VmSize)
	case FieldVmHWM:
		return fmt.Sprint(st.VmHWM)
	case FieldVmRSS:
		return fmt.Sprint(st.VmRSS)
	case FieldRssAnon:
		return fmt.Sprint(st.RssAnon)
	case FieldRssFile:
		return fmt.Sprint(st.RssFile)
	case FieldRssShmem:
		return fmt.Sprint(st.RssShmem)
	case FieldVmSwap:
		return fmt.Sprint(st.VmSwap)
	case FieldThreads:
		return fmt.Sprint(st.Threads)
	case FieldSigCgt:
		return fmt.Sprint(st.SigCgt)
	case FieldCpusAllowedList:
		return st.CPUsAllowedList
	case FieldMemsAllowedList:
		return st.MemsAllowedList
	case FieldVoluntaryCtxt:
		return fmt.Sprint(st.VoluntaryCtxt)
	case FieldNonvoluntaryCtxt:
		return fmt.Sprint(st.NonvoluntaryCtxt)
	}
	return "?"
}

// FuzzParseStatus: no panic, errors name a line, and reading one field,
// three fields or all of them gives the same values.
func FuzzParseStatus(f *testing.F) {
	for _, p := range []string{"java-proc/tick-0/proc/6410/status", "procfiles/init-firecracker"} {
		if b, err := os.ReadFile("testdata/" + p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("Name:\tjava\nUid:\t1\nNSpid:\t5\t1\nVmRSS:\t7 kB\nVmRSS:\tx\nvoluntary_ctxt_switches:\t3"))
	f.Fuzz(func(t *testing.T, b []byte) {
		all, err := ParseStatus(b)
		checkParseErr(t, err)
		for i := range statusKeys {
			fl := StatusField(1) << i
			var one, three ProcStatus
			checkParseErr(t, one.Parse(b, fl))
			others := FieldName | FieldThreads
			if fl&others != 0 {
				others = FieldVmRSS | FieldUid
			}
			checkParseErr(t, three.Parse(b, fl|others))
			if a, o, th := fieldValue(&all, fl), fieldValue(&one, fl), fieldValue(&three, fl); a != o || a != th {
				t.Fatalf("%s: all %q, alone %q, with others %q", statusKeys[i], a, o, th)
			}
		}
	})
}

func TestParseCgroup(t *testing.T) {
	b, err := os.ReadFile("testdata/procfiles/cgroup-hybrid")
	if err != nil {
		t.Fatal(err)
	}
	ls, err := ParseCgroup(b)
	if err != nil || len(ls) != 10 || ls[0].ID != 9 || !slices.Equal(ls[0].Controllers, []string{"name=systemd"}) ||
		ls[5].ID != 4 || ls[5].Path != "/process_api/9b2311c328df08ed77ef54e482a9cc75" || ls[9].ID != 0 || ls[9].Controllers != nil || ls[9].Path != "/" {
		t.Errorf("%+v %v", ls, err)
	}
	for _, c := range []struct {
		in   string
		want []CgroupLine
	}{
		{"0::/user.slice/user-1000.slice/session-3.scope\n", []CgroupLine{{0, nil, "/user.slice/user-1000.slice/session-3.scope"}}},
		{"2:cpu,cpuacct:/kubepods/burstable/pod1f4/0c9e", []CgroupLine{{2, []string{"cpu", "cpuacct"}, "/kubepods/burstable/pod1f4/0c9e"}}},
		{"1:name=systemd:/system.slice/order-api.service\n\n0::/a:b/c\n", []CgroupLine{{1, []string{"name=systemd"}, "/system.slice/order-api.service"}, {0, nil, "/a:b/c"}}},
		{"0::/..\n", []CgroupLine{{0, nil, "/.."}}}, // a cgroup namespace's view of a process outside it
	} {
		ls, err := ParseCgroup([]byte(c.in))
		if err != nil || fmt.Sprint(ls) != fmt.Sprint(c.want) {
			t.Errorf("%q: %+v %v", c.in, ls, err)
		}
	}
	for _, c := range []struct{ in, line string }{
		{"", "line 0"}, {"garbage", "line 1"}, {"x:cpu:/", "line 1"}, {"1:cpu:relative", "line 1"}, {"\x00\x01", "line 1"},
		{"1:cpu", "line 1"}, {"-1:cpu:/", "line 1"}, {"0::/\n1:cpu:/a\x00b\n", "line 2"},
	} {
		ls, err := ParseCgroup([]byte(c.in))
		if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), c.line+":") {
			t.Errorf("%q: %v, want an ErrParse at %s", c.in, err, c.line)
		}
		if strings.HasPrefix(c.in, "0::/\n") && len(ls) != 1 {
			t.Errorf("%q: the good line was not kept: %+v", c.in, ls)
		}
	}
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		if ls, err := ParseCgroup(b); err != nil || len(ls) == 0 {
			t.Errorf("/proc/self/cgroup: %+v %v", ls, err)
		}
	}
}

func FuzzParseCgroup(f *testing.F) {
	if b, err := os.ReadFile("testdata/procfiles/cgroup-hybrid"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("2:cpu,cpuacct:/a:b\n0::/\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ls, err := ParseCgroup(b)
		checkParseErr(t, err)
		for _, l := range ls {
			if l.ID < 0 || len(l.Path) == 0 || l.Path[0] != '/' || strings.ContainsAny(l.Path, "\n\x00") {
				t.Fatalf("bad line %+v", l)
			}
		}
	})
}
