package sysinfo

import (
	"maps"
	"slices"
	"testing"

	"github.com/tuneloop/tuneloop/internal/hostfs"
)

const realLimits = `Limit                     Soft Limit           Hard Limit           Units     
Max cpu time              unlimited            unlimited            seconds   
Max stack size            8388608              unlimited            bytes     
Max processes             96365                96365                processes 
Max open files            20000                20000                files     
Max nice priority         0                    0                    
Max realtime timeout      unlimited            unlimited            us        
`

func TestParseProcStatus(t *testing.T) {
	in := "Name:\tjava\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t 2254388 kB\nThreads:\t213\nCpus_allowed:\tff\nCpus_allowed_list:\t0-7\nMems_allowed_list:\t0-1\nvoluntary_ctxt_switches:\t5\n"
	st, err := parseProcStatus(in)
	if err != nil {
		t.Fatal(err)
	}
	if st.UID != 1000 || st.Threads != 213 || st.RSSKB != 2254388 || !slices.Equal(st.CPUsAllowed, seq(0, 7)) || !slices.Equal(st.MemsAllowed, []int{0, 1}) {
		t.Errorf("got %+v", st)
	}
	for _, bad := range []string{"", "Threads:\tx\nName:\tj\n", "no colon", "Uid:\n"} {
		if _, err := parseProcStatus(bad); err == nil {
			t.Errorf("parseProcStatus(%q): want error", bad)
		}
	}
}

func TestParsePasswdAndCmdline(t *testing.T) {
	m, err := parsePasswd("root:x:0:0:root:/root:/bin/bash\n# c\napp:x:1000:1000:App user:/home/app:/bin/bash\nroot2:x:0:0::/:/bin/sh\n")
	if err != nil || !maps.Equal(m, map[int]string{0: "root", 1000: "app"}) {
		t.Errorf("passwd %v %v", m, err)
	}
	if _, err := parsePasswd("broken line\n"); err == nil {
		t.Error("bad passwd accepted")
	}
	args, err := splitCmdline([]byte("java\x00-Xmx4g\x00-jar\x00app.jar\x00"))
	if err != nil || !slices.Equal(args, []string{"java", "-Xmx4g", "-jar", "app.jar"}) {
		t.Errorf("cmdline %q %v", args, err)
	}
	if a, err := splitCmdline(nil); err != nil || a != nil {
		t.Errorf("kernel thread: %v %v", a, err)
	}
	if _, err := splitCmdline([]byte("\x01\x02\x00")); err == nil {
		t.Error("binary cmdline accepted")
	}
}

func TestJavaIdentity(t *testing.T) {
	homes := map[string]string{
		"/usr/lib/jvm/java-17-openjdk-amd64/bin/java": "/usr/lib/jvm/java-17-openjdk-amd64",
		"/opt/bisheng-jdk1.8.0_342/jre/bin/java":      "/opt/bisheng-jdk1.8.0_342",
		"/opt/jdk-21.0.2/bin/java":                    "/opt/jdk-21.0.2",
		"java":                                        "",
		"/usr/bin/java.sh":                            "",
		"/usr/lib/jvm/java-1.8.0-openjdk-1.8.0.392.b08-4.el8.x86_64/jre/bin/java": "/usr/lib/jvm/java-1.8.0-openjdk-1.8.0.392.b08-4.el8.x86_64",
	}
	for exe, want := range homes {
		if got := javaHomeOf(exe); got != want {
			t.Errorf("javaHomeOf(%q) = %q", exe, got)
		}
	}
	versions := map[string]string{
		"/usr/java/jdk1.8.0_292":                                     "1.8.0_292",
		"/usr/lib/jvm/java-17-openjdk-amd64":                         "17",
		"/opt/jdk-21.0.2":                                            "21.0.2",
		"/opt/bisheng-jdk1.8.0_342":                                  "1.8.0_342",
		"/usr/lib/jvm/java-1.8.0-openjdk-1.8.0.392.b08-4.el8.x86_64": "1.8.0",
		"/usr/lib/jvm/java-11-openjdk-11.0.21.0.9-2.el8.x86_64":      "11",
		"/opt/bisheng-jdk-17.0.9":                                    "17.0.9",
		"/opt/app/runtime":                                           "",
	}
	for p, want := range versions {
		if got := javaVersionFromPath(p); got != want {
			t.Errorf("javaVersionFromPath(%q) = %q, want %q", p, got, want)
		}
	}
	mains := []struct {
		args []string
		want string
	}{
		{[]string{"java", "-Xms64m", "-cp", "/tmp/x", "Sleep"}, "Sleep"},
		{[]string{"/opt/jdk/bin/java", "-server", "-Xmx4g", "-jar", "app.jar", "--spring.profiles.active=prod"}, "app.jar"},
		{[]string{"java", "--add-opens", "java.base/java.lang=ALL-UNNAMED", "-m", "app/com.x.Main"}, "app/com.x.Main"},
		{[]string{"java", "-classpath", "a.jar:b.jar", "-Dx=y", "org.apache.catalina.startup.Bootstrap", "start"}, "org.apache.catalina.startup.Bootstrap"},
		{[]string{"java", "-version"}, ""},
	}
	for _, tt := range mains {
		if got := mainClass(tt.args); got != tt.want {
			t.Errorf("mainClass(%q) = %q", tt.args, got)
		}
	}
}

func TestSelinuxAndAudit(t *testing.T) {
	tests := []struct {
		in      selinuxIn
		want    string
		wantErr bool
	}{
		{selinuxIn{enforce: "1", fsPresent: true, cmdlineKnown: true}, "enforcing", false},
		{selinuxIn{enforce: "0", fsPresent: true, cmdlineKnown: true}, "permissive", false},
		{selinuxIn{cmdlineKnown: true, args: map[string]string{}}, "absent", false},
		{selinuxIn{config: "disabled"}, "disabled", false},
		{selinuxIn{enforce: "1", fsPresent: true, cmdlineKnown: true, args: map[string]string{"selinux": "0"}}, "disabled", false},
		{selinuxIn{fsPresent: true}, "", true},
	}
	for _, tt := range tests {
		got, err := selinuxMode(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("selinuxMode(%+v) = %q %v", tt.in, got, err)
		}
	}
	k := Kernel{Cmdline: Got("ro audit=0", "/proc/cmdline"), Args: map[string]string{"ro": "", "audit": "0"}}
	if a := auditState(k, Got(true, "x")); a.Value != "off" {
		t.Errorf("audit=0: %+v", a)
	}
	k.Args = map[string]string{}
	if a := auditState(k, Got(true, "x")); a.Value != "on" {
		t.Errorf("auditd running: %+v", a)
	}
	if a := auditState(k, Got(false, "x")); a.Value != "off" {
		t.Errorf("no auditd: %+v", a)
	}
}

func TestCollectJVMsAndDaemons(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"proc/1/comm":                        "systemd\n",
		"proc/1/cmdline":                     "/sbin/init\x00",
		"proc/812/comm":                      "irqbalance\n",
		"proc/812/cmdline":                   "/usr/sbin/irqbalance\x00--foreground\x00",
		"proc/900/comm":                      "auditd\n",
		"proc/4321/comm":                     "java\n",
		"proc/4321/cmdline":                  "/opt/bisheng-jdk1.8.0_342/bin/java\x00-Xms4g\x00-Xmx4g\x00-XX:+UseG1GC\x00-jar\x00/srv/app.jar\x00",
		"proc/4321/status":                   "Name:\tjava\nUid:\t1000\t1000\t1000\t1000\nVmRSS:\t 4194304 kB\nThreads:\t213\nCpus_allowed_list:\t0-3\nMems_allowed_list:\t0\n",
		"proc/4321/limits":                   realLimits,
		"proc/4321/fd/0":                     "",
		"proc/4321/fd/1":                     "",
		"proc/4321/cgroup":                   "0::/app.slice\n",
		"proc/self/mountinfo":                "29 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
		"sys/fs/cgroup/app.slice/cpu.max":    "400000 100000\n",
		"sys/fs/cgroup/app.slice/memory.max": "8589934592\n",
		"opt/bisheng-jdk1.8.0_342/release":   "JAVA_VERSION=\"1.8.0_342\"\nIMPLEMENTOR=\"Huawei Technologies Co., Ltd\"\n",
		"etc/passwd":                         "root:x:0:0:root:/root:/bin/bash\napp:x:1000:1000::/home/app:/bin/bash\n",
	})
	h := hostfs.Under(dir)
	ps := scanProcs(h)
	if ps.err != nil || len(ps.procs) != 4 {
		t.Fatalf("scan: %+v", ps)
	}
	if d := ps.daemons(); !slices.Equal(d.Value, []string{"auditd", "irqbalance"}) {
		t.Errorf("daemons %+v", d)
	}
	if r := ps.running("irqbalance"); !r.OK || !r.Value {
		t.Errorf("irqbalance %+v", r)
	}
	jf := collectJVMs(h, ps)
	if !jf.OK || len(jf.Value) != 1 {
		t.Fatalf("jvms %+v", jf)
	}
	j := jf.Value[0]
	if j.PID != 4321 || j.User != "app" || j.UID != 1000 || j.JavaHome != "/opt/bisheng-jdk1.8.0_342" || j.Version != "1.8.0_342" ||
		j.Vendor != "Huawei Technologies Co., Ltd" || j.MainClass != "/srv/app.jar" || j.Threads != 213 || j.RSSKB != 4194304 ||
		j.OpenFDs != 2 || j.Limits["Max open files"].Soft != 20000 || j.CPUQuota != 4 || j.MemoryLimit != 8<<30 ||
		!slices.Equal(j.CPUsAllowed, []int{0, 1, 2, 3}) || len(j.Args) != 6 {
		t.Errorf("jvm %+v", j)
	}
}

func FuzzParseProcStatus(f *testing.F) {
	f.Add("Name:\tjava\nUid:\t1000\t1000\t1000\t1000\nThreads:\t213\nCpus_allowed_list:\t0-7\n")
	f.Fuzz(func(t *testing.T, s string) {
		st, err := parseProcStatus(s)
		if err == nil && !slices.IsSorted(st.CPUsAllowed) {
			t.Fatal("unsorted cpus")
		}
	})
}

func FuzzParsePasswd(f *testing.F) {
	f.Add("root:x:0:0:root:/root:/bin/bash\n")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parsePasswd(s)
		if err == nil {
			for _, n := range m {
				if n == "" {
					t.Fatal("empty user name")
				}
			}
		}
	})
}

func FuzzJavaIdentity(f *testing.F) {
	f.Add("/opt/bisheng-jdk1.8.0_342/jre/bin/java", "java\x00-jar\x00a.jar")
	f.Fuzz(func(t *testing.T, exe, cmdline string) {
		home := javaHomeOf(exe)
		if home != "" && len(home) >= len(exe) {
			t.Fatalf("home %q not shorter than %q", home, exe)
		}
		_ = javaVersionFromPath(exe)
		if args, err := splitCmdline([]byte(cmdline)); err == nil {
			m := mainClass(args)
			if m != "" && !slices.Contains(args, m) && !slices.ContainsFunc(args, func(a string) bool { return a == "--module="+m }) {
				t.Fatalf("main %q not among args %q", m, args)
			}
		}
	})
}
