#include "textflag.h"

// func read16(p *uint64, blocks int) uint64
//
// Sums blocks of 64 bytes with 16-byte loads (SSE2, every amd64 has it):
// four independent accumulators, as a C compiler vectorises such a loop
// for the baseline x86-64 target (sysbench's memory read).
TEXT ·read16(SB), NOSPLIT, $0-24
	MOVQ  p+0(FP), SI
	MOVQ  blocks+8(FP), CX
	PXOR  X0, X0
	PXOR  X1, X1
	PXOR  X2, X2
	PXOR  X3, X3
	TESTQ CX, CX
	JLE   done

loop:
	MOVOU 0(SI), X4
	MOVOU 16(SI), X5
	MOVOU 32(SI), X6
	MOVOU 48(SI), X7
	PADDQ X4, X0
	PADDQ X5, X1
	PADDQ X6, X2
	PADDQ X7, X3
	ADDQ  $64, SI
	DECQ  CX
	JNZ   loop

done:
	PADDQ  X1, X0
	PADDQ  X3, X2
	PADDQ  X2, X0
	PSHUFD $0x4e, X0, X1
	PADDQ  X1, X0
	MOVQ   X0, AX
	MOVQ   AX, ret+16(FP)
	RET
