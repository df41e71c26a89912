package kernel

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Kind is one type of kernel: how its parameters are checked and shown and
// how a Gram entry follows from the inner product xᵀy (and, for
// distance-based kernels, the squared norms ‖x‖², ‖y‖²). Kinds register
// themselves with RegisterKind, so a new kernel is one value in one file;
// Kernel stays a plain serialisable value whose Type names its kind.
type Kind struct {
	// Name is the canonical type name stored in Kernel.Type.
	Name string
	// Aliases are other names Parse accepts (e.g. "gaussian" for "rbf").
	Aliases []string
	// NeedsNorms says whether Elementwise uses the squared norms.
	NeedsNorms bool
	// Elementwise returns the map (xᵀy, ‖x‖², ‖y‖²) ↦ k(x, y) for the
	// parameters of k (called once per Gram matrix).
	Elementwise func(k Kernel) func(dot, xn, yn float64) float64
	// Validate checks the parameters (nil: none to check).
	Validate func(k Kernel) error
	// Defaults sets the parameters Parse starts from (nil: zero values).
	Defaults func(k *Kernel)
	// String describes k, e.g. "rbf(sigma=1)".
	String func(k Kernel) string
	// Params are the parameters (of sigma, gamma, degree, offset) that the
	// kind uses; Set and Parse refuse the others, which it would ignore.
	Params []string
}

var kinds = map[string]Kind{}
var aliases = map[string]string{}

// RegisterKind adds a kernel kind; it panics on a duplicate name (a
// programming error caught at init).
func RegisterKind(k Kind) {
	for _, n := range append([]string{k.Name}, k.Aliases...) {
		if _, dup := aliases[n]; dup || n == "sum" {
			panic("kernel: duplicate kind " + n)
		}
		aliases[n] = k.Name
	}
	kinds[k.Name] = k
}

func lookupKind(name string) (Kind, error) {
	if name == "" {
		name = "linear" // the zero Kernel is linear
	}
	if c, ok := aliases[strings.ToLower(name)]; ok {
		return kinds[c], nil
	}
	return Kind{}, fmt.Errorf("kernel: unknown type %q (want %s or sum)", name, strings.Join(Names(), ", "))
}

// Applies reports whether parameter key (sigma, gamma, degree, offset;
// coef0 is offset) means something for kernels of type typ; unknown
// types and sums report true (their own checks decide).
func Applies(typ, key string) bool {
	if strings.EqualFold(typ, "sum") {
		return true
	}
	kd, err := lookupKind(typ)
	if err != nil {
		return true
	}
	key = strings.ToLower(key)
	if key == "coef0" {
		key = "offset"
	}
	return slices.Contains(kd.Params, key)
}

// NotApplicable is the error of a parameter that kernels of type typ do
// not use (Applies is false).
func NotApplicable(typ, key string) error {
	kd, _ := lookupKind(typ)
	takes := "no parameters"
	if len(kd.Params) > 0 {
		takes = "only " + strings.Join(kd.Params, ", ")
	}
	return fmt.Errorf("parameter %s does not apply to the %s kernel, which takes %s (it would be ignored)", key, kd.Name, takes)
}

// gamma of an RBF kernel.
func (k Kernel) rbfGamma() float64 {
	if k.Gamma > 0 {
		return k.Gamma
	}
	return 1 / (2 * k.Sigma * k.Sigma)
}

// DefaultDegree is the degree of a polynomial kernel whose Degree is 0.
const DefaultDegree = 2

func (k Kernel) deg() int {
	if k.Degree == 0 {
		return DefaultDegree
	}
	return k.Degree
}

func (k Kernel) scale() float64 {
	if k.Gamma == 0 {
		return 1
	}
	return k.Gamma
}

func offsetAndGammaNumbers(name string) func(k Kernel) error {
	return func(k Kernel) error {
		if math.IsNaN(k.Offset) || math.IsNaN(k.Gamma) || math.IsInf(k.Offset, 0) || math.IsInf(k.Gamma, 0) {
			return fmt.Errorf("kernel %s: offset and gamma must be finite numbers, got offset=%v gamma=%v", name, k.Offset, k.Gamma)
		}
		return nil
	}
}

func init() {
	RegisterKind(Kind{
		Name:        "linear",
		Elementwise: func(Kernel) func(dot, xn, yn float64) float64 { return func(dot, _, _ float64) float64 { return dot } },
		String:      func(Kernel) string { return "linear" },
	})
	RegisterKind(Kind{
		Name: "rbf", Aliases: []string{"gaussian"}, NeedsNorms: true,
		Elementwise: func(k Kernel) func(dot, xn, yn float64) float64 {
			g := k.rbfGamma()
			return func(dot, a, b float64) float64 { return math.Exp(-g * math.Max(0, a+b-2*dot)) }
		},
		Validate: func(k Kernel) error {
			if k.Gamma == 0 && !(k.Sigma >= 0) {
				return fmt.Errorf("kernel rbf: sigma must be > 0 (or unset: auto), got %v", k.Sigma)
			}
			if k.IsAuto() {
				return nil // width chosen from the training rows (Resolve)
			}
			if k.Gamma < 0 || math.IsNaN(k.Gamma) || math.IsInf(k.Gamma, 0) || math.IsInf(k.Sigma, 0) {
				return fmt.Errorf("kernel rbf: gamma must be > 0 and finite, got gamma=%v sigma=%v", k.Gamma, k.Sigma)
			}
			if g := k.rbfGamma(); math.IsInf(g, 0) || g == 0 {
				return fmt.Errorf("kernel rbf: sigma=%v gives gamma=1/(2σ²)=%v, outside the floating-point range", k.Sigma, g)
			}
			return nil
		},
		String: func(k Kernel) string {
			if k.IsAuto() {
				return "rbf(sigma=auto)"
			}
			if k.Gamma > 0 {
				return fmt.Sprintf("rbf(gamma=%g)", k.Gamma)
			}
			return fmt.Sprintf("rbf(sigma=%g)", k.Sigma)
		},
		Params: []string{"sigma", "gamma"},
	})
	RegisterKind(Kind{
		Name: "poly", Aliases: []string{"polynomial"},
		Elementwise: func(k Kernel) func(dot, xn, yn float64) float64 {
			s, o, p := k.scale(), k.Offset, float64(k.deg())
			if p == 2 {
				return func(dot, _, _ float64) float64 { v := s*dot + o; return v * v }
			}
			return func(dot, _, _ float64) float64 { return math.Pow(s*dot+o, p) }
		},
		Validate: func(k Kernel) error {
			if k.Degree < 0 {
				return fmt.Errorf("kernel poly: degree must be ≥ 1, got %d", k.Degree)
			}
			return offsetAndGammaNumbers("poly")(k)
		},
		Defaults: func(k *Kernel) { k.Degree = DefaultDegree },
		String:   func(k Kernel) string { return fmt.Sprintf("poly(degree=%d,offset=%g)", k.deg(), k.Offset) },
		Params:   []string{"gamma", "degree", "offset"},
	})
	RegisterKind(Kind{
		Name: "sigmoid",
		Elementwise: func(k Kernel) func(dot, xn, yn float64) float64 {
			s, o := k.scale(), k.Offset
			return func(dot, _, _ float64) float64 { return math.Tanh(s*dot + o) }
		},
		Validate: offsetAndGammaNumbers("sigmoid"),
		String:   func(k Kernel) string { return fmt.Sprintf("sigmoid(gamma=%g,offset=%g)", k.scale(), k.Offset) },
		Params:   []string{"gamma", "offset"},
	})
}

// String gives a compact description, e.g. "rbf(sigma=1)".
func (k Kernel) String() string {
	if k.Type == "sum" {
		parts := make([]string, len(k.Terms))
		for i, t := range k.Terms {
			if i < len(k.Weights) {
				parts[i] = fmt.Sprintf("%g*%s", k.Weights[i], t)
			} else {
				parts[i] = fmt.Sprintf("?*%s", t) // an invalid sum (Validate says so) still prints
			}
		}
		return strings.Join(parts, "+")
	}
	if kd, err := lookupKind(k.Type); err == nil && kd.String != nil {
		return kd.String(k)
	}
	return k.Type
}
