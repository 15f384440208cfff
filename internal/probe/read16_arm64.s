#include "textflag.h"

// func read16(p *uint64, blocks int) uint64
//
// Sums blocks of 64 bytes with 16-byte loads (NEON, every arm64 has it):
// one LD1 of four registers a block, four independent accumulators.
TEXT ·read16(SB), NOSPLIT, $0-24
	MOVD p+0(FP), R0
	MOVD blocks+8(FP), R1
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	CMP  $0, R1
	BLE  done

loop:
	VLD1.P 64(R0), [V4.D2, V5.D2, V6.D2, V7.D2]
	VADD   V4.D2, V0.D2, V0.D2
	VADD   V5.D2, V1.D2, V1.D2
	VADD   V6.D2, V2.D2, V2.D2
	VADD   V7.D2, V3.D2, V3.D2
	SUBS   $1, R1, R1
	BNE    loop

done:
	VADD V1.D2, V0.D2, V0.D2
	VADD V3.D2, V2.D2, V2.D2
	VADD V2.D2, V0.D2, V0.D2
	VMOV V0.D[0], R2
	VMOV V0.D[1], R3
	ADD  R3, R2, R2
	MOVD R2, ret+16(FP)
	RET
