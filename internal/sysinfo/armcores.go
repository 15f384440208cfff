package sysinfo

import "fmt"

// ARM MIDR implementer codes (arch/arm64/include/asm/cputype.h, lscpu-arm.c).
var armVendors = map[string]string{
	"0x41": "ARM",
	"0x42": "Broadcom",
	"0x43": "Cavium",
	"0x46": "Fujitsu",
	"0x48": "HiSilicon",
	"0x4e": "NVIDIA",
	"0x50": "APM",
	"0x51": "Qualcomm",
	"0x61": "Apple",
	"0x6d": "Microsoft",
	"0x70": "Phytium",
	"0xc0": "Ampere",
}

// armCores names server-relevant cores by implementer and part.
var armCores = map[[2]string]string{
	{"0x41", "0xd03"}: "Cortex-A53",
	{"0x41", "0xd05"}: "Cortex-A55",
	{"0x41", "0xd07"}: "Cortex-A57",
	{"0x41", "0xd08"}: "Cortex-A72",
	{"0x41", "0xd09"}: "Cortex-A73",
	{"0x41", "0xd0b"}: "Cortex-A76",
	{"0x41", "0xd0c"}: "Neoverse N1",
	{"0x41", "0xd40"}: "Neoverse V1",
	{"0x41", "0xd49"}: "Neoverse N2",
	{"0x41", "0xd4f"}: "Neoverse V2",
	{"0x41", "0xd83"}: "Neoverse V3AE",
	{"0x41", "0xd84"}: "Neoverse V3",
	{"0x41", "0xd8e"}: "Neoverse N3",
	{"0x48", "0xd01"}: "Kunpeng 920 (TaiShan v110)",
	// 0xd02 is "HIP09" in the kernel's cputype.h; the marketing name is not
	// certain, so say what is known.
	{"0x48", "0xd02"}: "HiSilicon part 0xd02",
	{"0x43", "0x0af"}: "ThunderX2",
	{"0x46", "0x001"}: "A64FX",
	{"0xc0", "0xac3"}: "AmpereOne",
	{"0xc0", "0xac4"}: "AmpereOne AC04",
	{"0x50", "0x000"}: "X-Gene",
	{"0x70", "0x662"}: "Phytium FTC662",
	{"0x70", "0x663"}: "Phytium FTC663",
	{"0x70", "0x660"}: "Phytium FTC660",
	{"0x70", "0x862"}: "Phytium FTC862",
	{"0x4e", "0x004"}: "NVIDIA Carmel",
}

func armVendor(impl string) string {
	if v, ok := armVendors[impl]; ok {
		return v
	}
	return "implementer " + impl
}

// armCoreName names the core; Ampere Altra reports ARM's own Neoverse N1
// MIDR, so it reads "Neoverse N1", which is what it is.
func armCoreName(impl, part string) string {
	if n, ok := armCores[[2]string{impl, part}]; ok {
		return n
	}
	return fmt.Sprintf("%s part %s", armVendor(impl), part)
}

// isKunpeng: a HiSilicon server core (TaiShan v110 and its successor).
func isKunpeng(impl, part string) bool {
	return impl == "0x48" && (part == "0xd01" || part == "0xd02")
}
