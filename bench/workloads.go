package bench

import (
	"fmt"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/graph"
	"github.com/dimred/dimred/kernel"
)

// Workloads returns every workload, in the order they run.
func Workloads() []*Workload {
	return []*Workload{
		{ID: "W0", Variant: "rbf-gram", Title: "RBF Gram matrix, kernel.Kernel.Gram(X, nil)", Source: MNIST,
			N: 5000, CheckN: 1000, Prepare: prepareGram, Check: gramCheck,
			Peer: &PeerSpec{Workload: "W0", Params: gammaParams, Agree: agreeGram}},
		methodWorkload("W1", "pca", nil, 50, 10000, 1500,
			&PeerSpec{Workload: "W1", Params: dimsParams(50), Agree: agreeValues("eigenvalues", pcaVariance)}),
		methodWorkload("W2", "lda", nil, 0, 10000, 1500,
			&PeerSpec{Workload: "W2", Agree: agreeValues("explained_variance_ratio", ratios)}),
		methodWorkload("W3", "kpca", rbf, 50, 5000, 1000,
			&PeerSpec{Workload: "W3", Params: kpcaParams, Agree: agreeValues("eigenvalues", nil)}),
		methodWorkload("W4", "gda", rbf, 0, 5000, 1000,
			&PeerSpec{Workload: "W4", Only: "GDA", Params: ridgeParams, Agree: agreeValues("eigenvalues", nil)}),
		methodWorkload("W4", "kqmi", rbf, 0, 5000, 1000,
			&PeerSpec{Workload: "W4", Only: "KQMI", Params: ridgeParams, Agree: agreeValues("eigenvalues", nil)}),
		{ID: "W5", Variant: "knn", Title: "k = 10 nearest neighbours, graph.KNN(graph.Euclidean{X}, 10, …)", Source: MNIST,
			N: 10000, CheckN: 1000, Prepare: prepareKNN(10), Check: knnCheck(10),
			Peer: &PeerSpec{Workload: "W5", Params: func(in *Input) (map[string]any, error) {
				return map[string]any{"n": in.N(), "k": 10}, nil
			}, Agree: agreeKNN}},
		methodWorkload("W6", "slpp", nil, 9, 5000, 1000,
			&PeerSpec{Workload: "W6", Only: "SLPP", Prepare: slppPeerInputs}),
		methodWorkload("W6", "knda", nil, 9, 5000, 1000,
			&PeerSpec{Workload: "W6", Only: "KNDA", Prepare: kndaPeerInputs}),
		svmWorkload(),
		kqmiWorkload("kqmi-exact", MNIST, 10000, false),
		kqmiWorkload("kqmi-nystrom", MNIST, 10000, true),
		kqmiWorkload("kqmi-nystrom-mixture", Mixture, 200000, true),
	}
}

// rbf are the parameters of the RBF workloads; the gamma of the source is
// added at run time.
var rbf = map[string]string{"kernel": "rbf"}

// methodWorkload times method.New(name, params).Fit(X, y, dims) and the
// Transform of X (dims 0: the method's maximum, C−1 for the class
// methods), and checks it against the dense route.
func methodWorkload(id, name string, params map[string]string, dims, n, checkN int, peer *PeerSpec) *Workload {
	title := fmt.Sprintf("method.FitTransform(method.New(%q, %s), X, y, %d)", name, fmtParams(params), dims)
	return &Workload{ID: id, Variant: name, Title: title, Source: MNIST, N: n, CheckN: checkN,
		Prepare: func(in *Input) (*Job, error) {
			p := params
			if needsGamma(p) {
				p = withParams(p, "gamma", fmtFloat(in.Gamma))
			}
			return &Job{
				Run: func() (any, error) { return fitMethod(name, p, in.X, in.Y, dims) },
				Values: func(out any) (map[string]any, error) {
					f := out.(*fitted)
					return map[string]any{"eigenvalues": head(f.values, 10), "dims": colsOf(f.z)}, nil
				},
			}, nil
		},
		Check: denseReference(name, params, dims),
		Peer:  peer,
	}
}

// fmtParams prints method parameters for a title, with the source's gamma
// as γ.
func fmtParams(p map[string]string) string {
	if len(p) == 0 {
		return "nil"
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	kv := make([]string, 0, len(p)+1)
	for _, k := range keys {
		kv = append(kv, k+"="+p[k])
	}
	if needsGamma(p) {
		kv = append(kv, "gamma=γ")
	}
	return "{" + strings.Join(kv, ", ") + "}"
}

func prepareGram(in *Input) (*Job, error) {
	k := kernel.Kernel{Type: "rbf", Gamma: in.Gamma}
	return &Job{
		Run: func() (any, error) { return k.Gram(in.X, nil) },
		Values: func(out any) (map[string]any, error) {
			g := out.(*mat.Dense)
			sum, tr := sumTrace(g)
			return map[string]any{"sum": sum, "trace": tr, "k01": g.At(0, 1)}, nil
		},
	}, nil
}

func prepareKNN(k int) func(in *Input) (*Job, error) {
	return func(in *Input) (*Job, error) {
		return &Job{
			Run: func() (any, error) { return graph.KNN(graph.Euclidean{X: in.X}, k, graph.SearchOptions{}) },
			Values: func(out any) (map[string]any, error) {
				nb := out.(*graph.Neighbours)
				directed, sum := 0, 0.0
				pairs := map[[2]int]bool{}
				for i, idx := range nb.Index {
					for t, j := range idx {
						directed++
						sum += nb.Dist[i][t]
						pairs[[2]int{min(i, j), max(i, j)}] = true
					}
				}
				return map[string]any{"directed_edges": directed, "undirected_edges": len(pairs),
					"distance_sum_directed": sum}, nil
			},
		}, nil
	}
}
