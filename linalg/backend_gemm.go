//go:build !openblas

package linalg

import "github.com/dimred/dimred/internal/gemm"

// In the pure-Go build, gonum's matrix products run on internal/gemm's
// AVX2/FMA kernel where the CPU has one (its init installs it in every
// program that imports it; dimred's data and kernel import it too, so the
// numbers do not depend on which dimred packages a program imports).
func init() {
	if gemm.Installed() {
		backendName = "gonum+avx2"
	}
}
