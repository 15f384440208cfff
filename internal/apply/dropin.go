package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/hostfs"
)

// KindDropin is a systemd unit drop-in tuneloop owns:
// /etc/systemd/system/UNIT.d/50-tuneloop-NAME.conf, its whole content the
// value. Absent before, revert removes it; present, revert puts the old
// content back. Drift is judged on the content's hash. systemd reads it at
// the next daemon-reload, and the service at its next start: neither is
// done here (NextSteps says them), since restarting a service is the
// user's decision.
const KindDropin = "dropin"

// dropinRE is the only shape of path a drop-in change may name: tuneloop's
// own file in a unit's drop-in folder under /etc/systemd/system.
var dropinRE = regexp.MustCompile(`^/etc/systemd/system/([A-Za-z0-9:_.@\-]+\.(?:service|socket|slice|scope|mount|timer))\.d/50-tuneloop-([A-Za-z0-9_.\-]+)\.conf$`)

// directiveRE is one "Key=value" line of a drop-in.
var directiveRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*=`)

// maxDropin bounds a drop-in's content.
const maxDropin = 64 << 10

// DropinPath is the drop-in tuneloop writes for unit ("app" is taken as
// app.service) under the name name.
func DropinPath(unit, name string) string {
	if !strings.Contains(unit, ".") {
		unit += ".service"
	}
	return "/etc/systemd/system/" + unit + ".d/50-tuneloop-" + name + ".conf"
}

// Dropin is the change that writes directives (e.g.
// "Environment=JAVA_TOOL_OPTIONS=-Xmx2g", "LimitNOFILE=65536",
// "CPUAffinity=0-3") into a [section] of unit's tuneloop drop-in.
func Dropin(unit, name, section string, directives []string) (finding.Change, error) {
	key := DropinPath(unit, name)
	if !dropinRE.MatchString(key) {
		return finding.Change{}, fmt.Errorf("drop-in %q: unit or name is not a plain systemd name", key)
	}
	if section == "" {
		section = "Service"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by tuneloop apply; tuneloop revert removes it (or restores what was here).\n[%s]\n", section)
	for _, d := range directives {
		if !directiveRE.MatchString(d) || strings.ContainsAny(d, "\x00\n\r") {
			return finding.Change{}, fmt.Errorf("drop-in %s: %q is not one Key=value line", key, d)
		}
		b.WriteString(d + "\n")
	}
	return finding.Change{Kind: KindDropin, Key: key, Value: b.String()}, nil
}

// resolveDropin checks a drop-in change (a crafted check.json may name any
// path and any content) and maps it under the roots.
func resolveDropin(h hostfs.FS, c finding.Change) ([]target, error) {
	if !dropinRE.MatchString(c.Key) {
		return nil, fmt.Errorf("%q: a drop-in is /etc/systemd/system/UNIT.d/50-tuneloop-NAME.conf", c.Key)
	}
	if len(c.Value) > maxDropin || strings.ContainsRune(c.Value, 0) || !strings.Contains(c.Value, "[") {
		return nil, fmt.Errorf("%s: the content is not a unit file section (or larger than 64 KiB)", c.Key)
	}
	p, err := hostPath(h, c.Key)
	if err != nil {
		return nil, err
	}
	return []target{{Kind: KindDropin, Key: c.Key, Path: p}}, nil
}

// isDropin reports whether key is a drop-in's path.
func isDropin(key string) bool { return dropinRE.MatchString(key) }

// contentHash is how a drop-in is compared: byte for byte, as a hash (a
// blank line added by someone else is a change of the unit too).
func contentHash(v string) string {
	s := sha256.Sum256([]byte(v))
	return "sha256:" + hex.EncodeToString(s[:])
}

// DropinUnit is the unit a drop-in key belongs to ("" when key is none).
func DropinUnit(key string) string {
	m := dropinRE.FindStringSubmatch(key)
	if m == nil {
		return ""
	}
	return m[1]
}

// NextSteps are the commands that make changed drop-ins take effect, one
// per unit (in order): systemd reads a drop-in at daemon-reload and the
// service its settings at its next start, both left to the user.
func NextSteps(keys []string) []finding.Text {
	seen := map[string]bool{}
	var units []string
	for _, k := range keys {
		if u := DropinUnit(k); u != "" && !seen[u] {
			seen[u] = true
			units = append(units, u)
		}
	}
	sort.Strings(units)
	var out []finding.Text
	for _, u := range units {
		out = append(out, finding.Tf(finding.T("next: systemctl daemon-reload && systemctl restart %s (the drop-in takes effect at the unit's next start; tuneloop did not restart it)",
			"下一步：systemctl daemon-reload && systemctl restart %s（drop-in 在该单元下次启动时生效；tuneloop 未重启它）"), u))
	}
	return out
}
