package rules

import (
	"testing"

	"github.com/tuneloop/tuneloop/internal/finding"
)

func TestBishengOnKunpeng(t *testing.T) {
	f := kunpeng2s4n()
	j := jvm0(f)
	j.Vendor, j.Version, j.JavaHome, j.Exe = "Red Hat, Inc.", "1.8.0_342", "/usr/lib/jvm/java-1.8.0", "/usr/lib/jvm/java-1.8.0/bin/java"
	fs := eval("jvm.jdk.bisheng-on-kunpeng", JavaWeb, f)
	if len(fs) != 1 || fs[0].Status != finding.Fail || fs[0].Severity != finding.Info {
		t.Fatalf("OpenJDK on Kunpeng: %+v", fs)
	}
	j.Vendor, j.JavaHome = "Huawei", "/usr/lib/jvm/bisheng-jdk1.8.0_342"
	if fs := eval("jvm.jdk.bisheng-on-kunpeng", JavaWeb, f); fs[0].Status != finding.Pass {
		t.Errorf("Bisheng on Kunpeng: %s", fs[0].Status)
	}
	// Not Kunpeng: skipped, whatever the JDK.
	if fs := eval("jvm.jdk.bisheng-on-kunpeng", JavaWeb, healthyHost()); fs[0].Status != finding.Skipped {
		t.Errorf("x86 host: %s", fs[0].Status)
	}
}

func TestBishengG1Uncommit(t *testing.T) {
	f := healthyHost()
	j := jvm0(f)
	j.JavaHome = "/opt/bisheng-jdk1.8.0_432"
	// Xms == Xmx: nothing to return, the rule passes.
	if fs := eval("jvm.bisheng.features", JavaWeb, f); fs[0].Status != finding.Pass {
		t.Errorf("Xms == Xmx: %s", fs[0].Status)
	}
	j.Options.XmsBytes = j.Options.XmxBytes - 1
	fs := eval("jvm.bisheng.features", JavaWeb, f)
	if fs[0].Status != finding.Fail || fs[0].Fix.Apply != "JAVA_OPTS += -XX:+G1Uncommit" || fs[0].Fix.Revert == "" {
		t.Errorf("Xms < Xmx without G1Uncommit: %s %q", fs[0].Status, fs[0].Fix.Apply)
	}
	j.Options.Bools["G1Uncommit"] = true
	if fs := eval("jvm.bisheng.features", JavaWeb, f); fs[0].Status != finding.Pass {
		t.Errorf("with G1Uncommit: %s", fs[0].Status)
	}
	j.JavaHome, j.Vendor = "/usr/lib/jvm/java-17-openjdk", ""
	if fs := eval("jvm.bisheng.features", JavaWeb, f); fs[0].Status != finding.Skipped {
		t.Errorf("not Bisheng: %s", fs[0].Status)
	}
}
