package porting

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/porting/archive"
	"github.com/tuneloop/tuneloop/internal/porting/elfinfo"
)

// judge.go: the verdicts of a finished scan (jars, loose native files, JDKs,
// JVM options, problems) and the texts that explain them.

func (s *scan) judge() {
	// JDKs: from release files and libjvm.so.
	var jdks []*jdk
	find := func(c *archive.Container, prefix string) *jdk {
		for _, j := range jdks {
			if j.c == c && j.prefix == prefix {
				return j
			}
		}
		j := &jdk{c: c, prefix: prefix}
		jdks = append(jdks, j)
		return j
	}
	for i := range s.releases {
		r := &s.releases[i]
		find(r.c, r.prefix).release = r
	}
	for _, n := range s.natives {
		if root, ok := jdkRootOfLibjvm(n.name); ok && n.jar == nil {
			find(n.container, root).libjvm = n
		}
	}
	var loose []*nativeFile
	families := map[string][]*nativeFile{}
	for _, n := range s.natives {
		owned := false
		if n.jar == nil {
			for _, j := range jdks {
				if j.c == n.container && strings.HasPrefix(n.name, j.prefix) && (j.libjvm != nil || j.release != nil) {
					j.natives = append(j.natives, n)
					owned = true
					break
				}
			}
		}
		if owned || n.otherOS {
			continue
		}
		if n.err != nil {
			s.add(corruptELF(n))
			continue
		}
		families[n.family] = append(families[n.family], n)
		if n.jar == nil {
			loose = append(loose, n)
		}
	}
	for _, j := range s.jarList {
		if insideJDK(j.c, jdks) {
			continue // the JDK's own jars (jrt-fs.jar) go with the JDK
		}
		if r := s.judgeJar(j, families); r != nil {
			s.add(*r)
		}
	}
	var dirKeys []*jarState
	for _, j := range s.dirJar {
		dirKeys = append(dirKeys, j)
	}
	sort.Slice(dirKeys, func(a, b int) bool { return dirKeys[a].c.Path < dirKeys[b].c.Path })
	for _, j := range dirKeys {
		if r := s.judgeHints(j, families, "classes in "+j.c.Path, ""); r != nil {
			s.add(*r)
		}
	}
	s.judgeLoose(loose, families)
	for _, j := range jdks {
		if r := s.judgeJDK(j); r != nil {
			s.add(*r)
		}
	}
	for _, f := range s.opts2 {
		s.judgeOptions(f)
	}
	for _, im := range s.images {
		s.judgeImage(im)
	}
	s.judgeProblems()
	sort.SliceStable(s.rep.Results, func(a, b int) bool {
		ra, rb := &s.rep.Results[a], &s.rep.Results[b]
		if rank(ra.Verdict) != rank(rb.Verdict) {
			return rank(ra.Verdict) > rank(rb.Verdict)
		}
		return ra.Path < rb.Path
	})
	if s.rootErr != nil {
		s.rep.Error = s.rootErr.Error()
	}
}

func rank(v Verdict) int {
	switch v {
	case Blocker:
		return 3
	case Upgrade:
		return 2
	case Confirm:
		return 1
	}
	return 0
}

func (s *scan) add(r Result) { s.rep.Results = append(s.rep.Results, r) }

// primary picks the jar's own coordinates: the pom.properties whose
// artifactId matches the file name, else the only one.
func (j *jarState) primary() (Coords, string) {
	art, ver, cls := coordsFromFileName(j.c.Name)
	for _, c := range j.coords {
		if c.Artifact == art {
			return c, cls
		}
	}
	if len(j.coords) == 1 {
		return j.coords[0], cls
	}
	return Coords{Artifact: art, Version: ver}, cls
}

// manifestVersion is Bundle-Version, else the first word of
// Implementation-Version ("5.13.0 (b0)" -> "5.13.0").
func manifestVersion(m map[string]string) string {
	if v := strings.TrimSpace(m["Bundle-Version"]); v != "" {
		return v
	}
	if f := strings.Fields(m["Implementation-Version"]); len(f) > 0 {
		return f[0]
	}
	return ""
}

func (s *scan) memberEvidence(fam []*nativeFile) []finding.Evidence {
	var ev []finding.Evidence
	// The target's build first: it is what makes a family pass.
	fam = append([]*nativeFile(nil), fam...)
	sort.SliceStable(fam, func(a, b int) bool { return s.isTarget(fam[a].info) && !s.isTarget(fam[b].info) })
	for i, n := range fam {
		if i >= 6 {
			ev = append(ev, finding.Evidence{Key: "more", Value: fmt.Sprintf("%d more builds", len(fam)-i)})
			break
		}
		v := n.info.String()
		if n.info.MaxGlibc != "" {
			v += ", needs GLIBC_" + n.info.MaxGlibc
		}
		if n.info.Musl {
			v += ", musl"
		}
		ev = append(ev, finding.Evidence{Key: "elf", Value: v, Source: n.path})
	}
	return ev
}

func (s *scan) splitFamilies(keys []string, families map[string][]*nativeFile) (ok, missing []string) {
	for _, k := range keys {
		has := false
		for _, n := range families[k] {
			// A musl build does not load on a glibc system (openEuler, Kylin, CentOS...).
			if s.isTarget(n.info) && !n.info.Musl {
				has = true
				break
			}
		}
		if has {
			ok = append(ok, k)
		} else {
			missing = append(missing, k)
		}
	}
	return ok, missing
}

// judgeJar judges one jar: which library it is, which native families it
// (or its siblings) carries, and whether the target's build is among them.
func (s *scan) judgeJar(j *jarState, families map[string][]*nativeFile) *Result {
	id, lib, name := s.identify(j)
	if lib != nil && lib.NotLinux {
		return s.result(j.c.Path, "library", name, Pass, id.Version, "", finding.Tf(finding.T(
			"%s: native code for macOS/BSD only; not used on Linux", "%s：仅含 macOS/BSD 原生代码，Linux 上不使用"), lib.Name),
			nil, finding.Fix{}, nil)
	}
	if lib != nil && lib.LoaderOnly && len(j.natives) == 0 {
		return nil
	}
	if lib == nil && len(j.natives) == 0 {
		return s.judgeHints(j, families, name, id.Version)
	}
	var keys []string
	keys, families = s.familiesOf(j, lib, families)
	if lib == nil && len(keys) == 0 {
		// Only natives for other OSes (or corrupt ones, reported apart).
		return s.judgeHints(j, families, name, id.Version)
	}
	okKeys, missing := s.splitFamilies(keys, families)
	var ev []finding.Evidence
	if id.Version != "" {
		ev = append(ev, finding.Evidence{Key: "version", Value: id.Version, Source: j.c.Path})
	}
	target := s.opts.Target.String()
	for _, k := range missing {
		ev = append(ev, finding.Evidence{Key: "no " + target + " build", Value: k})
	}
	for _, k := range keys {
		ev = append(ev, s.memberEvidence(families[k])...)
	}
	if len(keys) > 0 && len(missing) == 0 {
		if r := s.glibcCheck(j.c.Path, name, id.Version, okKeys, families, ev); r != nil {
			return r
		}
		title := finding.Tf(finding.T("%s: native code for %s found", "%s：已找到 %s 原生代码"), name, target)
		if lib != nil {
			ev = append(ev, finding.Evidence{Key: "known library", Value: lib.Name, Source: lib.Source})
		}
		return s.result(j.c.Path, "library", name, Pass, id.Version, "", title, ev, finding.Fix{}, nil)
	}
	if lib != nil {
		return s.judgeKnown(j, lib, id, name, keys, missing, ev)
	}
	return s.result(j.c.Path, "native", name, Blocker, id.Version, "",
		finding.Tf(finding.T("%s ships native code with no %s build", "%s 含原生库但没有 %s 版本"), name, target), ev,
		finding.Fix{Note: finding.Tf(finding.T("Get a version of this library that bundles linux %s binaries from its vendor, or rebuild the native part for %s (cross-compile with aarch64-linux-gnu-gcc) and repackage.",
			"向供应商获取包含 Linux %s 二进制的版本，或为 %s 重新编译原生部分（aarch64-linux-gnu-gcc 交叉编译）后重新打包。"), target, target)}, nil)
}

// identify finds the jar's coordinates and known library (by Maven
// coordinates, artifact, OSGi bundle or native file name) and the name a
// result gives it.
func (s *scan) identify(j *jarState) (id Coords, lib *Library, name string) {
	id, classifier := j.primary()
	for _, c := range append([]Coords{id}, j.coords...) {
		if lib = libraryByCoords(s.libs, c.GA()); lib != nil {
			if c.Version != "" {
				id = c
			}
			break
		}
	}
	if lib == nil && id.Group == "" {
		lib = libraryByArtifact(s.libs, id.Artifact)
	}
	if lib == nil && id.Group == "" && j.manifest["Bundle-SymbolicName"] != "" {
		if lib = libraryByBundle(s.libs, j.manifest["Bundle-SymbolicName"]); lib != nil {
			g, a, _ := strings.Cut(lib.Coords[0], ":")
			id = Coords{Group: g, Artifact: a, Version: id.Version}
		}
	}
	if id.Version == "" {
		id.Version = manifestVersion(j.manifest)
	}
	if lib == nil {
		for _, n := range j.natives {
			if lib = libraryByNative(s.libs, n.name); lib != nil {
				break
			}
		}
	}
	if lib != nil && id.Group == "" {
		for _, c := range lib.Coords {
			if g, a, _ := strings.Cut(c, ":"); a == id.Artifact {
				id.Group = g
			}
		}
	}
	name = id.String()
	if id.Group == "" {
		name = baseName(j.c.Name)
	}
	if classifier != "" {
		name += ":" + classifier
	}
	return id, lib, name
}

// familiesOf returns the native families the jar is judged on, sorted,
// and the files of each: a library that bundles its natives in its own jar
// (JNA, snappy, sqlite-jdbc...) loads them from that jar, so it is judged
// on its own files, and an old copy does not pass on a newer copy's
// aarch64 build. Split artifacts (SideClassifier) and unknown jars are
// judged with their siblings across the whole PATH.
func (s *scan) familiesOf(j *jarState, lib *Library, families map[string][]*nativeFile) ([]string, map[string][]*nativeFile) {
	keySet := map[string]bool{}
	for _, n := range j.natives {
		if n.err == nil && !n.otherOS {
			keySet[n.family] = true
		}
	}
	if lib != nil && lib.SideClassifier == "" && len(j.natives) > 0 {
		own := map[string][]*nativeFile{}
		for _, n := range j.natives {
			if n.err == nil && !n.otherOS {
				own[n.family] = append(own[n.family], n)
			}
		}
		families = own
	} else if lib != nil {
		for k, fam := range families {
			for _, m := range lib.Markers {
				if strings.Contains(k, m) && !keySet[k] {
					// A shaded copy (grpc) carries a longer marker; only take families this library owns.
					if owner := libraryByNative(s.libs, fam[0].name); owner == lib {
						keySet[k] = true
					}
				}
			}
		}
	}
	keys := make([]string, 0, len(keySet))
	for k := range keySet {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, families
}

// judgeKnown judges a known library whose target build is missing: an
// unsupported one, an old version, a missing side jar, or a stripped copy.
func (s *scan) judgeKnown(j *jarState, lib *Library, id Coords, name string, keys, missing []string, ev []finding.Evidence) *Result {
	target := s.opts.Target.String()
	ev = append(ev, finding.Evidence{Key: "known library", Value: lib.Name, Source: lib.Source})
	fallback := finding.Text{}
	if lib.Fallback {
		fallback = finding.T(" It falls back to a slower pure-Java path without the native library.",
			"缺少原生库时会退回较慢的纯 Java 实现。")
	}
	switch {
	case lib.Unsupported:
		r := s.result(j.c.Path, "library", name, Blocker, id.Version, lib.Replacement,
			finding.Tf(finding.T("%s has no released %s build", "%s 没有发布 %s 版本"), lib.Name, target), ev,
			finding.Fix{Note: finding.Tf(finding.T("Replace the dependency with %s, rebuild and retest on %s.",
				"将该依赖替换为 %s，重新构建并在 %s 上回归测试。"), lib.Replacement, target)}, nil)
		return r
	case !lib.VersionOK(id.Version):
		ga := id.GA()
		if id.Group == "" {
			ga = lib.Coords[0]
		}
		return s.result(j.c.Path, "library", name, Upgrade, id.Version, lib.Suggest,
			finding.Tf(finding.T("%s %s predates %s support: upgrade to %s or later", "%s %s 早于 %s 支持版本：升级到 %s 或更高"),
				lib.Name, id.Version, target, lib.Suggest),
			ev, finding.Fix{Note: plus(finding.Tf(finding.T("Upgrade %s from %s to %s or later (first version that works on %s; source: %s), rebuild and retest.",
				"将 %s 从 %s 升级到 %s 或更高（首个支持 %s 的版本；来源：%s），重新构建并回归测试。"),
				ga, id.Version, lib.Suggest, target, lib.Source), fallback)}, nil)
	case lib.SideClassifier != "" && len(keys) == 0:
		return s.result(j.c.Path, "library", name, Confirm, id.Version, "",
			finding.Tf(finding.T("%s: no native library packaged for any platform", "%s：未打包任何平台的原生库"), lib.Name),
			ev, finding.Fix{Note: plus(finding.Tf(finding.T("If the application uses the native code, add %s:%s:%s next to it.",
				"若应用使用原生实现，请同时加入 %s:%s:%s。"), lib.sideGA(id.GA()), id.Version, lib.SideClassifier), fallback)}, nil)
	case lib.SideClassifier != "" && len(missing) > 0:
		ga := id.GA()
		if lib.SideArtifact != "" {
			ga = lib.SideArtifact
		}
		add := ga + ":" + id.Version + ":" + lib.SideClassifier
		return s.result(j.c.Path, "library", name, Upgrade, id.Version, add,
			finding.Tf(finding.T("%s: the %s native jar is missing; add %s", "%s：缺少 %s 原生 jar，请加入 %s"), lib.Name, target, add),
			ev, finding.Fix{Note: plus(finding.Tf(finding.T("Add the dependency %s (the same version, %s classifier) and repackage.",
				"加入依赖 %s（同版本，%s classifier）并重新打包。"), add, lib.SideClassifier), fallback)}, nil)
	case len(keys) == 0:
		return s.result(j.c.Path, "library", name, Confirm, id.Version, "",
			finding.Tf(finding.T("%s: no native library found in this jar", "%s：该 jar 中没有原生库"), lib.Name), ev,
			finding.Fix{Note: finding.T("Check where the native library comes from on the target (java.library.path).",
				"确认目标机上原生库的来源（java.library.path）。")}, nil)
	}
	return s.result(j.c.Path, "library", name, Blocker, id.Version, "",
		finding.Tf(finding.T("%s %s: this copy has no %s native library (repackaged or stripped?)",
			"%s %s：该副本缺少 %s 原生库（被重新打包或裁剪？）"), lib.Name, id.Version, target), ev,
		finding.Fix{Note: finding.Tf(finding.T("Use the official %s artifact of this version, which includes %s, or add the %s build.",
			"使用该版本的官方 %s 制品（已包含 %s），或补充 %s 构建。"), lib.Coords[0], target, target)}, nil)
}

// plus appends a sentence in both languages.
func plus(t, more finding.Text) finding.Text {
	return finding.Text{EN: t.EN + more.EN, ZH: t.ZH + more.ZH}
}

var systemLibs = map[string]bool{"c": true, "libc": true, "m": true, "dl": true, "pthread": true, "rt": true, "z": true,
	"crypt": true, "util": true, "resolv": true, "udev": true, "systemd": true, "ssl": true, "crypto": true, "java": true,
	"jawt": true, "net": true, "nio": true, "zip": true, "verify": true, "management": true, "awt": true, "X11": true,
	"GL": true, "pam": true, "selinux": true, "numa": true, "aio": true, "cap": true}

func ignorableLib(l string) bool {
	ll := strings.ToLower(l)
	if systemLibs[l] || strings.HasPrefix(ll, "libc.so") || strings.HasPrefix(ll, "/lib") || strings.HasPrefix(ll, "/usr/lib") {
		return true
	}
	// Windows and macOS libraries: not loaded on Linux.
	return strings.HasSuffix(ll, "32") || strings.HasSuffix(ll, ".dll") || strings.HasSuffix(ll, ".dylib") ||
		ll == "corefoundation" || ll == "iokit" || ll == "system" || ll == "carbon" || ll == "appkit" || ll == "foundation" ||
		ll == "ntdll" || ll == "psapi" || ll == "iphlpapi" || ll == "wtsapi32" || ll == "shell32" || ll == "ole32"
}

// judgeHints handles a jar (or an exploded class tree) with no native
// library of its own: native methods or native-loading calls are to confirm
// unless the library they name is bundled for the target elsewhere.
func (s *scan) judgeHints(j *jarState, families map[string][]*nativeFile, name, version string) *Result {
	if len(j.calls) == 0 && j.nNative == 0 {
		return nil
	}
	var unresolved, resolved []string
	computed := 0
	seen := map[string]bool{}
	var ev []finding.Evidence
	for _, c := range j.calls {
		if c.lib == "" {
			computed++
			if computed <= 3 {
				ev = append(ev, finding.Evidence{Key: "call", Value: c.api + "(<computed name>)", Source: j.c.Path + "!/" + c.class + ".class"})
			}
			continue
		}
		if seen[c.lib] {
			continue
		}
		seen[c.lib] = true
		ev = append(ev, finding.Evidence{Key: "call", Value: c.api + "(\"" + c.lib + "\")", Source: j.c.Path + "!/" + c.class + ".class"})
		if ignorableLib(c.lib) {
			continue
		}
		if s.bundledForTarget(c.lib, families) {
			resolved = append(resolved, c.lib)
		} else {
			unresolved = append(unresolved, c.lib)
		}
	}
	for _, m := range j.nativeMethods {
		ev = append(ev, finding.Evidence{Key: "native method", Value: m, Source: j.c.Path})
	}
	if j.nNative > len(j.nativeMethods) {
		ev = append(ev, finding.Evidence{Key: "native methods", Value: fmt.Sprint(j.nNative)})
	}
	if len(unresolved) == 0 && computed == 0 && (j.nNative == 0 || len(resolved) > 0) {
		return nil // only system libraries, or libraries bundled for the target
	}
	target := s.opts.Target.String()
	what := strings.Join(unresolved, ", ")
	if what == "" {
		what = finding.T("a library named at run time", "运行时确定名称的库").EN
	}
	title := finding.Tf(finding.T("%s loads native code (%s) that is not bundled: confirm a %s build exists on the target",
		"%s 加载未随包提供的原生库（%s）：请确认目标机上有 %s 版本"), name, what, target)
	if len(unresolved) == 0 && computed > 0 {
		title.ZH = fmt.Sprintf("%s 加载运行时确定名称的原生库（未随包提供）：请确认目标机上有 %s 版本", name, target)
	}
	if len(unresolved) == 0 && computed == 0 {
		title = finding.Tf(finding.T("%s declares %d native methods but bundles no native library: confirm a %s build exists",
			"%s 声明了 %d 个 native 方法但未附带原生库：请确认有 %s 版本"), name, j.nNative, target)
	}
	return s.result(j.c.Path, "jni", name, Confirm, version, "", title, ev,
		finding.Fix{Note: finding.Tf(finding.T("Find which file provides the library on the target (java.library.path, LD_LIBRARY_PATH, jna.library.path) and check it with `file`: it must say ARM aarch64 for %s.",
			"在目标机上找到提供该库的文件（java.library.path、LD_LIBRARY_PATH、jna.library.path），用 `file` 检查：%s 需为 ARM aarch64。"), target)}, nil)
}

func (s *scan) bundledForTarget(lib string, families map[string][]*nativeFile) bool {
	l := strings.ToLower(lib)
	for _, fam := range families {
		for _, n := range fam {
			b := strings.ToLower(baseName(n.name))
			if (strings.HasPrefix(b, "lib"+l) || strings.HasPrefix(b, l)) && s.isTarget(n.info) {
				return true
			}
		}
	}
	return false
}

func (s *scan) glibcCheck(where, name, version string, okKeys []string, families map[string][]*nativeFile, ev []finding.Evidence) *Result {
	if s.opts.Glibc == "" {
		return nil
	}
	for _, k := range okKeys {
		for _, n := range families[k] {
			if s.isTarget(n.info) && !n.info.Musl && n.info.MaxGlibc != "" && elfinfo.CompareDotted(n.info.MaxGlibc, s.opts.Glibc) > 0 {
				return s.result(where, "library", name, Confirm, version, "",
					finding.Tf(finding.T("%s: the %s build needs glibc %s, the target has %s", "%s：%s 版本需要 glibc %s，目标系统为 %s"),
						name, s.opts.Target.String(), n.info.MaxGlibc, s.opts.Glibc), ev,
					finding.Fix{Note: finding.T("Use a build linked against an older glibc, or a target OS with a newer glibc; test on the target.",
						"使用基于更低 glibc 构建的版本，或使用 glibc 更新的目标系统；在目标机上验证。")}, nil)
			}
		}
	}
	return nil
}

func (s *scan) judgeLoose(loose []*nativeFile, families map[string][]*nativeFile) {
	seen := map[string]bool{}
	for _, n := range loose {
		if seen[n.family] {
			continue
		}
		seen[n.family] = true
		fam := families[n.family]
		okKeys, missing := s.splitFamilies([]string{n.family}, families)
		ev := s.memberEvidence(fam)
		name := baseName(n.name)
		target := s.opts.Target.String()
		if len(missing) == 0 {
			if r := s.glibcCheck(n.path, name, "", okKeys, families, ev); r != nil {
				s.add(*r)
				continue
			}
			s.add(*s.result(n.path, "native", name, Pass, "", "",
				finding.Tf(finding.T("%s is built for %s", "%s 为 %s 构建"), name, target), ev, finding.Fix{}, nil))
			continue
		}
		if lib := libraryByNative(s.libs, n.name); lib != nil && lib.Suggest != "" {
			ev = append(ev, finding.Evidence{Key: "known library", Value: lib.Name, Source: lib.Source})
			s.add(*s.result(n.path, "native", name, Upgrade, "", lib.Suggest,
				finding.Tf(finding.T("%s (%s) has no %s build here: use %s", "%s(%s)没有 %s 版本：请使用 %s"), name, lib.Name, target, lib.Suggest),
				ev, finding.Fix{Note: finding.Tf(finding.T("Install the %s build of %s: %s.", "安装 %s 版本的 %s:%s。"), target, lib.Name, lib.Suggest)}, nil))
			continue
		}
		s.add(*s.result(n.path, "native", name, Blocker, "", "",
			finding.Tf(finding.T("%s is built for %s only; no %s build found", "%s 仅有 %s 版本，未找到 %s 版本"), name, fam[0].info.Arch(), target),
			ev, finding.Fix{Note: finding.Tf(finding.T("Rebuild this library for %s (or get the vendor's %s package) and install it at the same path.",
				"为 %s 重新编译该库（或获取厂商的 %s 软件包），安装到相同路径。"), target, target)}, nil))
	}
}

func (s *scan) judgeJDK(j *jdk) *Result {
	where := j.c.Path
	if j.prefix != "" {
		where += "!/" + strings.TrimSuffix(j.prefix, "/")
		if j.c.Kind == "dir" {
			where = filepath.Join(j.c.Path, j.prefix)
		}
	}
	var ev []finding.Evidence
	arch, version := "", ""
	if j.release != nil {
		arch = j.release.m["OS_ARCH"]
		version = j.release.m["JAVA_VERSION"]
		for _, k := range []string{"JAVA_VERSION", "OS_ARCH", "IMPLEMENTOR"} {
			if v := j.release.m[k]; v != "" {
				ev = append(ev, finding.Evidence{Key: k, Value: v, Source: j.release.path})
			}
		}
	}
	elfArch := ""
	if j.libjvm != nil && j.libjvm.info != nil {
		elfArch = j.libjvm.info.Arch()
		ev = append(ev, finding.Evidence{Key: "libjvm.so", Value: j.libjvm.info.String(), Source: j.libjvm.path})
	}
	archs := map[string]int{}
	for _, n := range j.natives {
		if n.info != nil {
			archs[n.info.Arch()]++
		}
	}
	if len(archs) > 0 {
		var parts []string
		for a, c := range archs {
			parts = append(parts, fmt.Sprintf("%s=%d", a, c))
		}
		sort.Strings(parts)
		ev = append(ev, finding.Evidence{Key: "native files", Value: strings.Join(parts, " ")})
	}
	isTarget := false
	switch {
	case j.libjvm != nil && j.libjvm.info != nil:
		isTarget = s.isTarget(j.libjvm.info)
	case arch != "":
		a := strings.ToLower(arch)
		if s.opts.Target.Arch == "arm64" {
			isTarget = a == "aarch64" || a == "arm64"
		} else {
			isTarget = a == "amd64" || a == "x86_64"
		}
	default:
		return nil
	}
	name := "JDK " + version
	if version == "" {
		name = "JDK"
	}
	target := s.opts.Target.String()
	if !isTarget {
		got := elfArch
		if got == "" {
			got = arch
		}
		return s.result(where, "jdk", name, Blocker, version, "",
			finding.Tf(finding.T("Bundled %s is built for %s, not %s", "随包 %s 为 %s 构建，不是 %s"), name, got, target), ev,
			finding.Fix{Note: finding.Tf(finding.T("Replace it with a %s build of the same major version (BiSheng JDK, Temurin, Corretto, Kona); for JDK 8 use 8u292 or later.",
				"替换为同一大版本的 %s 构建（毕昇 JDK、Temurin、Corretto、Kona）；JDK 8 请使用 8u292 及以上。"), target)}, nil)
	}
	if upd, ok := jdk8Update(version); ok && upd < 292 && s.opts.Target.Arch == "arm64" {
		return s.result(where, "jdk", name, Upgrade, version, "1.8.0_292",
			finding.Tf(finding.T("%s predates the aarch64 port's mainline update (8u292)", "%s 早于 aarch64 移植并入主线的版本（8u292）"), name), ev,
			finding.Fix{Note: finding.T("Use JDK 8u292 or later (JDK-8257192 merged the AArch64 port into jdk8u mainline), ideally JDK 11 or 17.",
				"使用 JDK 8u292 或更高版本（JDK-8257192 将 AArch64 移植并入 jdk8u 主线），最好使用 JDK 11 或 17。")}, nil)
	}
	return s.result(where, "jdk", name, Pass, version, "",
		finding.Tf(finding.T("Bundled %s is built for %s", "随包 %s 为 %s 构建"), name, target), ev, finding.Fix{}, nil)
}

// jdk8Update returns N for "1.8.0_N".
func jdk8Update(v string) (int, bool) {
	rest, ok := strings.CutPrefix(v, "1.8.0_")
	if !ok {
		return 0, false
	}
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func (s *scan) judgeOptions(f optFile) {
	target := s.opts.Target.String()
	if len(f.scan.Flags) > 0 && s.opts.Target.Arch == "arm64" {
		var ev []finding.Evidence
		for _, h := range f.scan.Flags {
			ev = append(ev, finding.Evidence{Key: fmt.Sprintf("line %d", h.Line), Value: h.Flag, Source: f.path})
		}
		names := flagNames(f.scan.Flags)
		v, title := Blocker, finding.Tf(finding.T("x86-only JVM options %s: an aarch64 JVM refuses to start", "仅 x86 支持的 JVM 参数 %s:aarch64 JVM 将无法启动"), strings.Join(names, ", "))
		if f.scan.Ignore > 0 {
			v = Confirm
			title = finding.Tf(finding.T("x86-only JVM options %s are ignored on aarch64 (IgnoreUnrecognizedVMOptions)", "仅 x86 支持的 JVM 参数 %s 在 aarch64 上被忽略（IgnoreUnrecognizedVMOptions）"), strings.Join(names, ", "))
			ev = append(ev, finding.Evidence{Key: fmt.Sprintf("line %d", f.scan.Ignore), Value: "-XX:+IgnoreUnrecognizedVMOptions", Source: f.path})
		}
		file := f.path
		apply := ""
		if !strings.Contains(file, "!/") {
			apply = fmt.Sprintf("sed -i.bak -E 's/[[:space:]]*-XX:[+-]?(%s)(=[^[:space:]\"]*)?//g' '%s'", strings.Join(names, "|"), file)
		}
		fix := finding.Fix{Apply: apply, Note: finding.T("Remove these options (they tune x86 instruction sets); keep a copy for x86 hosts if the file is shared.",
			"删除这些参数（它们针对 x86 指令集）；若文件在 x86 主机上共用，请保留一份副本。")}
		if apply != "" {
			fix.Revert = fmt.Sprintf("mv '%s.bak' '%s'", file, file)
		}
		s.add(*s.result(f.path, "jvm-options", baseName(f.path), v, "", "", title, ev, fix, nil))
	}
	for _, im := range f.scan.Images {
		ev := []finding.Evidence{{Key: fmt.Sprintf("line %d", im.Line), Value: im.Text, Source: f.path}}
		if im.Blocker {
			s.add(*s.result(f.path, "base-image", baseName(f.path)+fmt.Sprintf(":%d", im.Line), Blocker, "", "",
				finding.Tf(finding.T("Base image pinned to linux/amd64, not %s", "基础镜像固定为 linux/amd64，不是 %s"), target), ev,
				finding.Fix{Note: finding.T("Use a multi-arch image (drop --platform=linux/amd64 or the amd64/ prefix) and build with docker buildx --platform linux/arm64.",
					"使用多架构镜像（去掉 --platform=linux/amd64 或 amd64/ 前缀），用 docker buildx --platform linux/arm64 构建。")}, nil))
			continue
		}
		s.add(*s.result(f.path, "base-image", baseName(f.path)+fmt.Sprintf(":%d", im.Line), Confirm, "", "",
			finding.T("Base image tag was published for amd64 only (openjdk Alpine): confirm an arm64 variant",
				"该基础镜像标签曾仅发布 amd64 版本（openjdk Alpine）：请确认有 arm64 版本"), ev,
			finding.Fix{Note: finding.T("Check with `docker manifest inspect IMAGE` that linux/arm64 is listed; eclipse-temurin or a vendor JDK image is multi-arch.",
				"用 `docker manifest inspect 镜像` 确认包含 linux/arm64;eclipse-temurin 或厂商 JDK 镜像为多架构。")}, nil))
	}
}

func corruptELF(n *nativeFile) Result {
	s := &scan{}
	return *s.result(n.path, "native", baseName(n.name), Confirm, "", "",
		finding.T("Native file has an ELF magic but a corrupt header", "原生文件具有 ELF 标识但文件头损坏"),
		[]finding.Evidence{{Key: "error", Value: n.err.Error(), Source: n.path}},
		finding.Fix{Note: finding.T("Check the file (`readelf -h`); a damaged library fails to load on any platform.",
			"检查该文件（`readelf -h`）；损坏的库在任何平台上都无法加载。")}, nil)
}

func (s *scan) judgeProblems() {
	for _, p := range s.problems {
		if s.rootErr != nil && p.Path == s.rep.Path && p.Kind == archive.Unreadable {
			continue // PATH itself: reported as the PathReport's error
		}
		var title finding.Text
		switch p.Kind {
		case archive.UnsafeName:
			title = finding.T("Archive entry with an unsafe name (path traversal); not extracted", "归档条目名称不安全（路径穿越），未解压")
		case archive.Limit:
			title = finding.T("Archive entry over a safety limit (possible zip bomb); not scanned", "归档条目超过安全上限（疑似 zip 炸弹），未扫描")
		default:
			title = finding.T("Archive or file could not be read (truncated or corrupt); not scanned", "归档或文件无法读取（截断或损坏），未扫描")
		}
		s.add(*s.result(p.Path, "archive", string(p.Kind), Confirm, "", "", title,
			[]finding.Evidence{{Key: string(p.Kind), Value: p.Err.Error(), Source: p.Path}},
			finding.Fix{Note: finding.T("Inspect this entry by hand; what it contains was not checked.",
				"请人工检查该条目；其内容未被检查。")}, nil))
	}
}

// result builds a Result and its Finding, the finding by the rule of its
// kind (Rules).
func (s *scan) result(where, kind, component string, v Verdict, version, suggest string, title finding.Text,
	ev []finding.Evidence, fix finding.Fix, refs []string) *Result {
	f := portingRules["porting."+kind].Evaluate(&Judged{Kind: kind, Component: component, Verdict: v, Title: title, Evidence: ev, Fix: fix, References: refs})[0]
	return &Result{Component: component, Kind: kind, Path: where, Verdict: v, Version: version, Suggest: suggest, Finding: f}
}

func observed(ev []finding.Evidence) finding.Text {
	var parts []string
	for i, e := range ev {
		if i >= 3 {
			break
		}
		parts = append(parts, e.Key+": "+e.Value)
	}
	s := strings.Join(parts, "; ")
	return finding.T(s, s)
}

func whyText(kind string, v Verdict) finding.Text {
	if v == Pass {
		return finding.T("Native code for the target architecture is present.", "已包含目标架构的原生代码。")
	}
	switch kind {
	case "library", "native":
		return finding.T("A JVM loads native libraries only for its own CPU: without a matching build the library fails with UnsatisfiedLinkError (\"can't load AMD 64 .so on a AARCH64 platform\") or falls back to slower code.",
			"JVM 只能加载与自身 CPU 架构一致的原生库：缺少对应构建时会抛出 UnsatisfiedLinkError(\"can't load AMD 64 .so on a AARCH64 platform\")或退回较慢的实现。")
	case "jni":
		return finding.T("The code loads a native library that is not in the package; it must be installed on the target for the right architecture.",
			"代码加载了包内不存在的原生库；目标机上必须安装对应架构的版本。")
	case "jvm-options":
		return finding.T("These -XX options exist only in the x86 JVM; an aarch64 JVM stops with \"Unrecognized VM option\".",
			"这些 -XX 参数只存在于 x86 版 JVM;aarch64 JVM 会报 \"Unrecognized VM option\" 并退出。")
	case "base-image":
		return finding.T("An amd64-only image runs on arm64 hosts only under emulation, or fails with \"exec format error\".",
			"仅 amd64 的镜像在 arm64 主机上只能通过模拟运行，否则报 \"exec format error\"。")
	case "jdk":
		return finding.T("A JDK runs only on the CPU it was built for; JDK 8 before 8u292 used the separate aarch64-port code base.",
			"JDK 只能在其构建的 CPU 架构上运行；8u292 之前的 JDK 8 使用独立的 aarch64-port 代码。")
	}
	return finding.T("The scan could not check this part of the input.", "扫描无法检查输入的这一部分。")
}

// ErrNoPaths is returned when Scan is called without a PATH.
var ErrNoPaths = errors.New("no PATH given")
