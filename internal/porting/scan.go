// Package porting scans install trees and Java archives for what stops them
// from running on another CPU architecture (linux/arm64 by default): native
// libraries without a build for the target (read from ELF headers, grouped
// with their sibling builds across the whole classpath), known libraries
// older than their first aarch64-capable version, Java code that loads
// native code nobody bundles, x86-only JVM flags, x86 JDKs and base images.
//
// Each component gets a verdict (pass, upgrade, blocker, confirm) with the
// evidence (the path inside the archive and the ELF machine read) and the
// fix, as a finding.Finding in English and Chinese.
package porting

import (
	"context"
	"debug/elf"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/porting/archive"
	"github.com/tuneloop/tuneloop/internal/porting/classfile"
	"github.com/tuneloop/tuneloop/internal/porting/elfinfo"
)

// Verdict is the outcome for one component.
type Verdict string

const (
	Pass    Verdict = "pass"
	Upgrade Verdict = "upgrade"
	Blocker Verdict = "blocker"
	Confirm Verdict = "confirm"
)

// Label is the verdict in the given language.
func (v Verdict) Label(l finding.Lang) string {
	if l == finding.ZH {
		switch v {
		case Pass:
			return "通过"
		case Upgrade:
			return "需升级"
		case Blocker:
			return "阻断"
		case Confirm:
			return "待确认"
		}
	}
	switch v {
	case Confirm:
		return "to confirm"
	}
	return string(v)
}

// Target is the platform the scan checks for.
type Target struct {
	OS, Arch string // "linux", "arm64"
	Machine  elf.Machine
}

func (t Target) String() string { return t.OS + "/" + t.Arch }

// ParseTarget accepts linux/arm64 (linux/aarch64) and linux/amd64 (linux/x86_64).
func ParseTarget(s string) (Target, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "linux/arm64", "linux/aarch64", "arm64", "aarch64":
		return Target{OS: "linux", Arch: "arm64", Machine: elf.EM_AARCH64}, nil
	case "linux/amd64", "linux/x86_64", "amd64", "x86_64":
		return Target{OS: "linux", Arch: "amd64", Machine: elf.EM_X86_64}, nil
	}
	return Target{}, fmt.Errorf("unknown target %q (want linux/arm64 or linux/amd64)", s)
}

// Options tune a scan.
type Options struct {
	Target Target
	Limits archive.Limits
	// Glibc is the target OS's glibc version ("2.28"); "" skips the check.
	Glibc string
}

// Result is the verdict on one component.
type Result struct {
	Component string          `json:"component"`
	Kind      string          `json:"kind"` // library, native, jni, jvm-options, base-image, jdk, archive
	Path      string          `json:"path"`
	Verdict   Verdict         `json:"verdict"`
	Version   string          `json:"version,omitempty"`
	Suggest   string          `json:"suggest,omitempty"`
	Finding   finding.Finding `json:"finding"`
}

// PathReport is the scan of one PATH.
type PathReport struct {
	Path     string   `json:"path"`
	Archives int      `json:"archives"`
	Jars     int      `json:"jars"`
	Classes  int      `json:"classes"`
	Natives  int      `json:"natives"`
	Results  []Result `json:"results"`
	// Error is set when PATH itself could not be read.
	Error string `json:"error,omitempty"`
}

// Counts returns how many results have each verdict.
func (p *PathReport) Counts() map[Verdict]int {
	m := map[Verdict]int{}
	for i := range p.Results {
		m[p.Results[i].Verdict]++
	}
	return m
}

type nativeFile struct {
	path, name string
	container  *archive.Container
	jar        *jarState
	info       *elfinfo.Info
	err        error
	family     string
	otherOS    bool // built for another OS (path or ELF OS/ABI says so)
}

type callInfo struct {
	api, lib, class string
}

type jarState struct {
	c             *archive.Container
	coords        []Coords
	manifest      map[string]string
	natives       []*nativeFile
	calls         []callInfo
	nativeMethods []string // "Class.method", a few
	nNative       int
	classes       int
}

type optFile struct {
	path string
	scan OptionsScan
}

type releaseFile struct {
	c      *archive.Container
	prefix string // directory inside the container, "" or "jdk/"
	path   string
	m      map[string]string
}

type scan struct {
	opts     Options
	libs     []Library
	rep      *PathReport
	jars     map[*archive.Container]*jarState
	jarList  []*jarState
	dirJar   map[*archive.Container]*jarState // classes in exploded trees
	natives  []*nativeFile
	opts2    []optFile
	releases []releaseFile
	images   []imageConfig
	problems []archive.Problem
	buf      []byte
	classes  classfile.Parser
	rootErr  error
}

// Scan scans one PATH. It returns an error only when PATH cannot be opened;
// damaged content inside becomes results.
func Scan(ctx context.Context, root string, o Options) (*PathReport, error) {
	s := newScan(root, o)
	if err := s.walker().Walk(ctx, root); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.judge()
	return s.rep, nil
}

// ScanAll scans every path into one report made at now by tuneloop
// version; a path that cannot be opened is in the report with its error
// (Report.Unreadable) and the scan goes on. Only ctx's end stops it.
func ScanAll(ctx context.Context, paths []string, o Options, version string, now time.Time) (*Report, error) {
	rep := &Report{Schema: SchemaID, Tool: "tuneloop", Version: version, Time: now.UTC(), Target: o.Target.String()}
	for _, p := range paths {
		pr, err := Scan(ctx, p, o)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			pr = &PathReport{Path: p, Error: err.Error()}
		}
		rep.Paths = append(rep.Paths, pr)
	}
	return rep, nil
}

// Unreadable is each path of the report that could not be read, as
// "PATH: why".
func (r *Report) Unreadable() []string {
	var out []string
	for _, p := range r.Paths {
		if p.Error != "" {
			out = append(out, fmt.Sprintf("%s: %s", p.Path, p.Error))
		}
	}
	return out
}

// ScanReader scans an archive held in r (name gives its type: .jar, .tar.gz...).
func ScanReader(ctx context.Context, name string, r io.ReaderAt, size int64, o Options) (*PathReport, error) {
	s := newScan(name, o)
	s.walker().WalkReader(ctx, name, r, size)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.judge()
	return s.rep, nil
}

func (s *scan) walker() *archive.Walker {
	return &archive.Walker{Limits: s.opts.Limits, Want: s.want, Visit: s.visit, Enter: s.enter, Problem: s.problem}
}

func newScan(root string, o Options) *scan {
	if o.Target.Machine == 0 {
		o.Target, _ = ParseTarget("")
	}
	return &scan{opts: o, libs: Libraries(), rep: &PathReport{Path: root},
		jars: map[*archive.Container]*jarState{}, dirJar: map[*archive.Container]*jarState{}}
}

func isJarName(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".jar", ".war", ".ear", ".rar", ".sar", ".har", ".aar":
		return true
	}
	return false
}

func (s *scan) enter(c *archive.Container) {
	if c.Kind != "dir" {
		s.rep.Archives++
	}
	if c.Kind == "zip" && isJarName(c.Name) {
		j := &jarState{c: c}
		s.jars[c] = j
		s.jarList = append(s.jarList, j)
		s.rep.Jars++
	}
}

// jarOf is the innermost jar holding c, nil for loose files.
func (s *scan) jarOf(c *archive.Container) *jarState {
	for ; c != nil; c = c.Parent {
		if j, ok := s.jars[c]; ok {
			return j
		}
	}
	return nil
}

func (s *scan) problem(p archive.Problem) {
	if p.Kind == archive.Unreadable && s.rootErr == nil && p.Path == s.rep.Path {
		s.rootErr = p.Err
	}
	s.problems = append(s.problems, p)
}

func (s *scan) want(c *archive.Container, name string, size int64) archive.Action {
	lower := strings.ToLower(name)
	inJar := s.jarOf(c) != nil
	switch {
	case strings.HasSuffix(lower, ".class"):
		return archive.Read
	case IsNativeName(name):
		return archive.Read
	case inJar:
		if strings.HasPrefix(lower, "meta-inf/maven/") && strings.HasSuffix(lower, "/pom.properties") ||
			lower == "meta-inf/manifest.mf" {
			return archive.Read
		}
		return archive.Skip
	case baseName(lower) == "release":
		return archive.Read
	case c.Kind == "tar" && size < 1<<20 && (strings.HasSuffix(lower, ".json") || strings.Contains(lower, "blobs/sha256/")):
		return archive.Read // image configs: docker save's <id>.json, OCI blobs
	}
	if ok, _ := IsOptionsFileName(name); ok && size < 4<<20 {
		return archive.Read
	}
	if strings.Contains("/"+lower, "/bin/") || strings.Contains("/"+lower, "/lib/") {
		return archive.Sniff // extensionless executables and libraries
	}
	return archive.Skip
}

// maxFileRead bounds what is read from a disk file into memory (class,
// options, release files); ELF files are read lazily, never whole.
const maxFileRead = 64 << 20

func (s *scan) read(r io.ReaderAt, size int64) ([]byte, error) {
	if b, ok := r.(archive.Bytes); ok && int64(len(b)) == size {
		return b, nil // in memory already: no copy
	}
	if size > maxFileRead {
		return nil, fmt.Errorf("%d bytes: too large to read", size)
	}
	if int64(cap(s.buf)) < size {
		s.buf = make([]byte, size)
	}
	b := s.buf[:size]
	n, err := r.ReadAt(b, 0)
	if int64(n) == size {
		return b, nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return nil, err
}

func (s *scan) visit(e *archive.Entry, r io.ReaderAt, size int64) {
	var head [4]byte
	n, _ := r.ReadAt(head[:], 0)
	if n == 4 && elfinfo.IsELF(head[:]) {
		s.rep.Natives++
		nf := &nativeFile{path: e.Path, name: e.Name, container: e.Container, jar: s.jarOf(e.Container)}
		nf.info, nf.err = elfinfo.Read(r, size)
		nf.family = FamilyKey(e.Name)
		nf.otherOS = ForOtherOS(e.Name) || (nf.info != nil && nf.info.OSABI != elf.ELFOSABI_NONE && nf.info.OSABI != elf.ELFOSABI_LINUX)
		if nf.jar != nil {
			nf.jar.natives = append(nf.jar.natives, nf)
		}
		s.natives = append(s.natives, nf)
		return
	}
	lower := strings.ToLower(e.Name)
	j := s.jarOf(e.Container)
	switch {
	case strings.HasSuffix(lower, ".class"):
		s.rep.Classes++
		b, err := s.read(r, size)
		if err != nil {
			return
		}
		ci, err := s.classes.Parse(b)
		if j == nil {
			j = s.dirJar[e.Container]
			if j == nil {
				j = &jarState{c: e.Container}
				s.dirJar[e.Container] = j
			}
		}
		j.classes++
		if err != nil || !ci.Native() {
			return
		}
		for _, c := range ci.Calls {
			j.calls = append(j.calls, callInfo{api: c.API, lib: c.Lib, class: ci.Name})
		}
		j.nNative += len(ci.NativeMethods)
		for _, m := range ci.NativeMethods {
			if len(j.nativeMethods) < 3 {
				j.nativeMethods = append(j.nativeMethods, strings.ReplaceAll(ci.Name, "/", ".")+"."+m)
			}
		}
	case j != nil && strings.HasSuffix(lower, "pom.properties"):
		if b, err := s.read(r, size); err == nil {
			if c, ok := ParsePomProperties(b); ok {
				j.coords = append(j.coords, c)
			}
		}
	case j != nil && lower == "meta-inf/manifest.mf":
		if b, err := s.read(r, size); err == nil {
			j.manifest = ParseManifest(b)
		}
	case baseName(lower) == "release":
		if b, err := s.read(r, size); err == nil {
			m := ParseRelease(b)
			if m["JAVA_VERSION"] != "" {
				prefix := strings.TrimSuffix(e.Name, baseName(e.Name))
				s.releases = append(s.releases, releaseFile{c: e.Container, prefix: prefix, path: e.Path, m: m})
			}
		}
	case e.Container.Kind == "tar" && (strings.HasSuffix(lower, ".json") || strings.Contains(lower, "blobs/sha256/")):
		if b, err := s.read(r, size); err == nil {
			if cfg, ok := ParseImageConfig(b); ok {
				s.images = append(s.images, imageConfig{path: e.Path, cfg: cfg})
			}
		}
	default:
		ok, docker := IsOptionsFileName(e.Name)
		if !ok {
			return
		}
		b, err := s.read(r, size)
		if err != nil {
			return
		}
		if sc := ScanOptions(b, docker); len(sc.Flags) > 0 || len(sc.Images) > 0 {
			s.opts2 = append(s.opts2, optFile{path: e.Path, scan: sc})
		}
	}
}

func (s *scan) isTarget(i *elfinfo.Info) bool {
	return i != nil && i.Machine == s.opts.Target.Machine && i.Class == elf.ELFCLASS64 && i.Data == elf.ELFDATA2LSB
}

// jdkRoot returns the JDK directory (inside its container) a native file
// belongs to, from a release file or libjvm.so's place.
func jdkRootOfLibjvm(name string) (string, bool) {
	if baseName(name) != "libjvm.so" {
		return "", false
	}
	dir := strings.TrimSuffix(name, "libjvm.so")
	parts := strings.Split(strings.TrimSuffix(dir, "/"), "/")
	// .../lib/server, .../jre/lib/amd64/server, .../lib/aarch64/server
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == "lib" {
			root := strings.Join(parts[:i], "/")
			if strings.HasSuffix(root, "/jre") { // JDK 8: jdk/jre/lib/amd64/server
				root = strings.TrimSuffix(root, "/jre")
			}
			if root != "" {
				root += "/"
			}
			return root, true
		}
	}
	return "", false
}

// insideJDK reports whether a jar sits in a JDK found in the same tree.
func insideJDK(c *archive.Container, jdks []*jdk) bool {
	for ; c.Parent != nil; c = c.Parent {
		for _, j := range jdks {
			if j.c == c.Parent && strings.HasPrefix(c.Name, j.prefix) && (j.libjvm != nil || j.release != nil) {
				return true
			}
		}
	}
	return false
}

type jdk struct {
	c       *archive.Container
	prefix  string
	release *releaseFile
	libjvm  *nativeFile
	natives []*nativeFile
}
