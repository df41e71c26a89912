//go:build !amd64 || purego

package gemm

// kern6x8 is never called where there is no kernel (Available is false).
func kern6x8(k int, a, b, c *float64) { panic("gemm: no kernel on this machine") }

func hasKernel() bool { return false }
