package sysinfo

import (
	"maps"
	"strings"
	"testing"
)

func TestParseCmdlineArgs(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]string
	}{
		{"BOOT_IMAGE=/vmlinuz-5.10.0 root=/dev/mapper/root ro crashkernel=512M quiet audit=0",
			map[string]string{"BOOT_IMAGE": "/vmlinuz-5.10.0", "root": "/dev/mapper/root", "ro": "", "crashkernel": "512M", "quiet": "", "audit": "0"}},
		// Real line from a Firecracker VM: everything after "--" belongs to init.
		{"mitigations=auto,no_guest_host console=ttyS0 quiet -- --firecracker-init --addr 0.0.0.0:2024",
			map[string]string{"mitigations": "auto,no_guest_host", "console": "ttyS0", "quiet": ""}},
		{`dyndbg="file x.c +p" selinux=1 selinux=0`, map[string]string{"dyndbg": "file x.c +p", "selinux": "0"}},
		{"", map[string]string{}},
		{"iommu.passthrough=1 transparent_hugepage=never", map[string]string{"iommu.passthrough": "1", "transparent_hugepage": "never"}},
	}
	for _, tt := range tests {
		if got := parseCmdlineArgs(tt.in); !maps.Equal(got, tt.want) {
			t.Errorf("parseCmdlineArgs(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseText(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"6.18.44-fc-v595\n", "6.18.44-fc-v595", false},
		{"  menu ", "menu", false},
		{"", "", true},
		{"a\nb", "", true},
		{"\x00\x01\x02", "", true},
		{"\xff\xfe", "", true},
	}
	for _, tt := range tests {
		got, err := parseText(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("parseText(%q) = %q, %v", tt.in, got, err)
		}
	}
}

func TestParseArch(t *testing.T) {
	for in, want := range map[string]string{"x86_64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"} {
		if got, err := parseArch(in); err != nil || got != want {
			t.Errorf("parseArch(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"not an arch at all", "sparc64", "riscv64", ""} {
		if _, err := parseArch(bad); err == nil {
			t.Errorf("parseArch(%q): want error", bad)
		}
	}
	if a := archFromRelease("3.10.0-1160.el7.x86_64"); a != "x86_64" {
		t.Errorf("archFromRelease = %q", a)
	}
	if a := archFromRelease("4.19.90-2112.8.0.0131.oe1.aarch64"); a != "aarch64" {
		t.Errorf("archFromRelease = %q", a)
	}
}

func TestParseKeyValues(t *testing.T) {
	in := `PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
ID=debian
# comment

IMPLEMENTOR='Huawei Technologies Co., Ltd'
`
	kv, err := parseKeyValues(in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"PRETTY_NAME": "Debian GNU/Linux 12 (bookworm)", "NAME": "Debian GNU/Linux", "VERSION_ID": "12", "ID": "debian", "IMPLEMENTOR": "Huawei Technologies Co., Ltd"}
	if !maps.Equal(kv, want) {
		t.Errorf("got %v", kv)
	}
	for _, bad := range []string{"", "just text", "A=1\nno equals here", "\x00\x01=2"} {
		if _, err := parseKeyValues(bad); err == nil {
			t.Errorf("parseKeyValues(%q): want error", bad)
		}
	}
	if _, err := parseKeyValues("A=1\nB C\n"); err == nil || err.Error() != `line 2: not KEY=value: "B C"` {
		t.Errorf("want line-numbered error, got %v", err)
	}
}

func FuzzParseCmdlineArgs(f *testing.F) {
	f.Add("BOOT_IMAGE=/vmlinuz ro quiet -- init args")
	f.Add(`a="b c" d`)
	f.Fuzz(func(t *testing.T, s string) {
		for k, v := range parseCmdlineArgs(s) {
			// Quotes are removed, so compare without them.
			plain := strings.ReplaceAll(s, `"`, "")
			if !strings.Contains(plain, k) || !strings.Contains(plain, v) {
				t.Fatalf("key %q / value %q not in input", k, v)
			}
		}
	})
}

func FuzzParseKeyValues(f *testing.F) {
	f.Add("ID=openEuler\nVERSION_ID=\"22.03\"\n")
	f.Add("JAVA_VERSION=\"1.8.0_342\"")
	f.Fuzz(func(t *testing.T, s string) {
		kv, err := parseKeyValues(s)
		if err == nil && len(kv) == 0 {
			t.Fatal("no error and no keys")
		}
		for k := range kv {
			if k == "" {
				t.Fatal("empty key")
			}
		}
	})
}

func FuzzParseText(f *testing.F) {
	f.Add("5.10.0-182.0.0.95.oe2203sp3.aarch64")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseText(s)
		if err == nil && (v == "" || checkText(v) != nil) {
			t.Fatalf("accepted %q", v)
		}
	})
}
