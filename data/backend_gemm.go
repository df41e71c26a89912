//go:build !openblas

package data

// In the pure-Go build, gonum's matrix products run on internal/gemm's
// AVX2/FMA kernel (where the CPU has one) in every program that imports
// this package: the same numbers whichever dimred packages it imports.
import _ "github.com/dimred/dimred/internal/gemm"
