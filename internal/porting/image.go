package porting

import (
	"encoding/json"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Container image configs found in a `docker save` or OCI-layout tarball
// (the <id>.json of docker save, or a blobs/sha256/<hex> config blob):
//
//	{"architecture":"amd64","os":"linux","variant":"",
//	 "config":{"Env":["JAVA_HOME=/opt/java/openjdk"]},
//	 "rootfs":{"type":"layers","diff_ids":["sha256:..."]}}

// ImageConfig is the part of an OCI image config the scan reads.
type ImageConfig struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
	Variant      string `json:"variant"`
	Rootfs       *struct {
		Type string `json:"type"`
	} `json:"rootfs"`
}

// ParseImageConfig recognises an image config: a JSON object with os,
// architecture and a rootfs of layers.
func ParseImageConfig(b []byte) (ImageConfig, bool) {
	var c ImageConfig
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &c) != nil {
		return c, false
	}
	return c, c.Architecture != "" && c.OS != "" && c.Rootfs != nil && c.Rootfs.Type == "layers"
}

type imageConfig struct {
	path string
	cfg  ImageConfig
}

func (s *scan) judgeImage(im imageConfig) {
	arch := strings.ToLower(im.cfg.Architecture)
	plat := im.cfg.OS + "/" + arch
	if im.cfg.Variant != "" {
		plat += "/" + im.cfg.Variant
	}
	ev := []finding.Evidence{{Key: "image config", Value: plat, Source: im.path}}
	target := s.opts.Target.String()
	if im.cfg.OS == s.opts.Target.OS && arch == s.opts.Target.Arch {
		s.add(*s.result(im.path, "base-image", "image "+plat, Pass, "", "",
			finding.Tf(finding.T("Container image is built for %s", "容器镜像为 %s 构建"), plat), ev, finding.Fix{}, nil))
		return
	}
	s.add(*s.result(im.path, "base-image", "image "+plat, Blocker, "", "",
		finding.Tf(finding.T("Container image is built for %s, not %s", "容器镜像为 %s 构建，不是 %s"), plat, target), ev,
		finding.Fix{Note: finding.Tf(finding.T("Rebuild the image for %s from a multi-arch base (docker buildx build --platform %s) and rescan it.",
			"基于多架构基础镜像为 %s 重新构建（docker buildx build --platform %s）并重新扫描。"), target, target)}, nil))
}
