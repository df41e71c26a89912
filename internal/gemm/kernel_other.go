//go:build !amd64 || purego

package gemm

// kern6x8 is never called where there is no kernel (Available is false).
func kern6x8(k int, a, b, c *float64) { panic("gemm: no kernel on this machine") }

// kern4x4s is never called where there is no kernel.
func kern4x4s(k int, a, b *float64, sstride, jstride int, c *float64) {
	panic("gemm: no kernel on this machine")
}

// kern12x4s is never called where there is no kernel.
func kern12x4s(k int, a, b *float64, sstride, jstride int, c *float64) {
	panic("gemm: no kernel on this machine")
}

func hasKernel() bool { return false }
