//go:build !purego

#include "textflag.h"

// CLEAR_Y8_Y15 zeroes the accumulators Y8-Y15.
#define CLEAR_Y8_Y15 \
	VXORPD Y8, Y8, Y8 \
	VXORPD Y9, Y9, Y9 \
	VXORPD Y10, Y10, Y10 \
	VXORPD Y11, Y11, Y11 \
	VXORPD Y12, Y12, Y12 \
	VXORPD Y13, Y13, Y13 \
	VXORPD Y14, Y14, Y14 \
	VXORPD Y15, Y15, Y15

// STORE12_RET writes the twelve accumulators Y4-Y15 to c (DX), one after
// the other, and returns.
#define STORE12_RET \
	VMOVUPD Y4, (DX) \
	VMOVUPD Y5, 32(DX) \
	VMOVUPD Y6, 64(DX) \
	VMOVUPD Y7, 96(DX) \
	VMOVUPD Y8, 128(DX) \
	VMOVUPD Y9, 160(DX) \
	VMOVUPD Y10, 192(DX) \
	VMOVUPD Y11, 224(DX) \
	VMOVUPD Y12, 256(DX) \
	VMOVUPD Y13, 288(DX) \
	VMOVUPD Y14, 320(DX) \
	VMOVUPD Y15, 352(DX) \
	VZEROUPPER \
	RET

// SKINNY_ARGS loads the arguments of the skinny kernels (k in CX, a in SI,
// the four columns of B at R8-R11, the step stride in BX, c in DX) and
// clears the first four accumulators, Y4-Y7.
#define SKINNY_ARGS \
	MOVQ k+0(FP), CX \
	MOVQ a+8(FP), SI \
	MOVQ b+16(FP), R8 \
	MOVQ sstride+24(FP), BX \
	MOVQ jstride+32(FP), AX \
	MOVQ c+40(FP), DX \
	LEAQ (R8)(AX*1), R9 \
	LEAQ (R9)(AX*1), R10 \
	LEAQ (R10)(AX*1), R11 \
	VXORPD Y4, Y4, Y4 \
	VXORPD Y5, Y5, Y5 \
	VXORPD Y6, Y6, Y6 \
	VXORPD Y7, Y7, Y7

// func kern6x8(k int, a, b, c *float64)
//
// c[i*8+j] = Σ_p a[p*6+i]·b[p*8+j] for i < 6, j < 8, p < k, each sum one
// chain of fused multiply-adds in increasing p starting from zero (the
// order gemm.go's reference follows). a is a packed panel of 6 rows of A
// (k steps of 6), b a packed panel of 8 columns of B (k steps of 8); c is
// overwritten. Twelve accumulators Y4-Y15, two B vectors Y0-Y1, two
// broadcasts Y2-Y3: every vector register.
TEXT ·kern6x8(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	CLEAR_Y8_Y15
	TESTQ CX, CX
	JEQ   store

loop:
	VMOVUPD      (DI), Y0
	VMOVUPD      32(DI), Y1
	VBROADCASTSD (SI), Y2
	VBROADCASTSD 8(SI), Y3
	VFMADD231PD  Y0, Y2, Y4
	VFMADD231PD  Y1, Y2, Y5
	VFMADD231PD  Y0, Y3, Y6
	VFMADD231PD  Y1, Y3, Y7
	VBROADCASTSD 16(SI), Y2
	VBROADCASTSD 24(SI), Y3
	VFMADD231PD  Y0, Y2, Y8
	VFMADD231PD  Y1, Y2, Y9
	VFMADD231PD  Y0, Y3, Y10
	VFMADD231PD  Y1, Y3, Y11
	VBROADCASTSD 32(SI), Y2
	VBROADCASTSD 40(SI), Y3
	VFMADD231PD  Y0, Y2, Y12
	VFMADD231PD  Y1, Y2, Y13
	VFMADD231PD  Y0, Y3, Y14
	VFMADD231PD  Y1, Y3, Y15
	ADDQ         $48, SI
	ADDQ         $64, DI
	DECQ         CX
	JNE          loop

store:
	STORE12_RET

// func kern4x4s(k int, a, b *float64, sstride, jstride int, c *float64)
//
// The skinny kernel: up to 4 rows of A against 4 columns of B read where
// they are stored. a is a packed panel of 4 rows (k steps of 4); column jj
// of B at step p is *(b + p·sstride + jj·jstride) (byte strides). Writes
// c[jj*4+i] = Σ_p a[p*4+i]·B[p][jj], each a chain of fused multiply-adds
// in increasing p from zero — the arithmetic of kern6x8 per element.
TEXT ·kern4x4s(SB), NOSPLIT, $0-48
	SKINNY_ARGS
	TESTQ CX, CX
	JEQ   sstore

sloop:
	VMOVUPD      (SI), Y0
	VBROADCASTSD (R8), Y1
	VBROADCASTSD (R9), Y2
	VBROADCASTSD (R10), Y3
	VBROADCASTSD (R11), Y8
	VFMADD231PD  Y1, Y0, Y4
	VFMADD231PD  Y2, Y0, Y5
	VFMADD231PD  Y3, Y0, Y6
	VFMADD231PD  Y8, Y0, Y7
	ADDQ         $32, SI
	ADDQ         BX, R8
	ADDQ         BX, R9
	ADDQ         BX, R10
	ADDQ         BX, R11
	DECQ         CX
	JNE          sloop

sstore:
	VMOVUPD Y4, (DX)
	VMOVUPD Y5, 32(DX)
	VMOVUPD Y6, 64(DX)
	VMOVUPD Y7, 96(DX)
	VZEROUPPER
	RET

// func kern12x4s(k int, a, b *float64, sstride, jstride int, c *float64)
//
// kern4x4s for up to 12 rows of A: a is a packed panel of 12 rows (k
// steps of 12), B is read as by kern4x4s, and c[jj*12+i] = Σ_p
// a[p*12+i]·B[p][jj], each a chain of fused multiply-adds in increasing p
// from zero. Twelve accumulators (Y4-Y15), three for the rows of A and
// one for the broadcast element of B: every element of B read is used by
// 12 rows, so a block product of up to 12 vectors reads a large B once.
TEXT ·kern12x4s(SB), NOSPLIT, $0-48
	SKINNY_ARGS
	CLEAR_Y8_Y15
	TESTQ CX, CX
	JEQ   tstore

tloop:
	VMOVUPD      (SI), Y0
	VMOVUPD      32(SI), Y1
	VMOVUPD      64(SI), Y2
	VBROADCASTSD (R8), Y3
	VFMADD231PD  Y3, Y0, Y4
	VFMADD231PD  Y3, Y1, Y5
	VFMADD231PD  Y3, Y2, Y6
	VBROADCASTSD (R9), Y3
	VFMADD231PD  Y3, Y0, Y7
	VFMADD231PD  Y3, Y1, Y8
	VFMADD231PD  Y3, Y2, Y9
	VBROADCASTSD (R10), Y3
	VFMADD231PD  Y3, Y0, Y10
	VFMADD231PD  Y3, Y1, Y11
	VFMADD231PD  Y3, Y2, Y12
	VBROADCASTSD (R11), Y3
	VFMADD231PD  Y3, Y0, Y13
	VFMADD231PD  Y3, Y1, Y14
	VFMADD231PD  Y3, Y2, Y15
	ADDQ         $96, SI
	ADDQ         BX, R8
	ADDQ         BX, R9
	ADDQ         BX, R10
	ADDQ         BX, R11
	DECQ         CX
	JNE          tloop

tstore:
	STORE12_RET
