//go:build !purego

package gemm

import "golang.org/x/sys/cpu"

// kern6x8 is in kernel_amd64.s.
//
//go:noescape
func kern6x8(k int, a, b, c *float64)

// kern4x4s is in kernel_amd64.s.
//
//go:noescape
func kern4x4s(k int, a, b *float64, sstride, jstride int, c *float64)

// kern12x4s is in kernel_amd64.s.
//
//go:noescape
func kern12x4s(k int, a, b *float64, sstride, jstride int, c *float64)

func hasKernel() bool { return cpu.X86.HasAVX2 && cpu.X86.HasFMA }
