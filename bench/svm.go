package bench

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
)

// W7: an RBF SVM (C = 100) on a 9-D LDA embedding of MNIST, against
// scikit-learn's SVC.

// SVMC is W7's cost.
const SVMC = 100

// svmInput is W7's data: the LDA embedding (fitted on the first
// TrainFraction of the rows) of the training and the held-out rows, and
// the RBF γ of the embedding (RBFGamma of its training rows).
type svmInput struct {
	ztr, zte *mat.Dense
	ytr, yte []int
	gamma    float64
}

func svmData(in *Input) (*svmInput, error) {
	xtr, ytr, xte, yte := split(in)
	f, err := fitMethod("lda", nil, xtr, ytr, 0)
	if err != nil {
		return nil, fmt.Errorf("LDA embedding: %w", err)
	}
	zte, err := f.model.Transform(xte)
	if err != nil {
		return nil, fmt.Errorf("LDA embedding: %w", err)
	}
	return &svmInput{ztr: f.z, zte: zte, ytr: ytr, yte: yte, gamma: RBFGamma(f.z)}, nil
}

func (s *svmInput) svm() classify.SVM {
	return classify.SVM{Kernel: classify.SVMRBF, C: SVMC, Gamma: s.gamma}
}

// svmOut is the output of one W7 run.
type svmOut struct {
	model *classify.SVMModel
	pred  []int
}

func svmWorkload() *Workload {
	return &Workload{ID: "W7", Variant: "svm-rbf", Source: MNIST, N: 10000, CheckN: 2000,
		Title: fmt.Sprintf("classify.SVM{rbf, C=%d, gamma=γ(Z)}.Fit on the LDA embedding Z of the first %.0f%% of the rows, Predict of the others", SVMC, 100*TrainFraction),
		Prepare: func(in *Input) (*Job, error) {
			s, err := svmData(in)
			if err != nil {
				return nil, err
			}
			c := s.svm()
			return &Job{
				Run: func() (any, error) {
					p, err := c.Fit(s.ztr, s.ytr)
					if err != nil {
						return nil, err
					}
					pred, err := p.Predict(s.zte)
					return &svmOut{model: p.(*classify.SVMModel), pred: pred}, err
				},
				Values: func(out any) (map[string]any, error) {
					o := out.(*svmOut)
					iter := 0
					for _, p := range o.model.Pairs {
						iter += p.Iterations
					}
					return map[string]any{"accuracy": 1 - classify.ErrorRate(o.pred, s.yte), "support_vectors": len(o.model.Support),
						"iterations": iter, "gamma": s.gamma, "train_rows": len(s.ytr), "test_rows": len(s.yte)}, nil
				},
			}, nil
		},
		Check: svmCheck,
		Peer:  &PeerSpec{Workload: "W7", Prepare: svmPeerInputs, Agree: agreeSVM},
	}
}

// SVMKKTLimit bounds W7's KKT check: the largest violation m(α) − M(α) of
// the solution, recomputed in float64 from a dense Gram matrix, may exceed
// the solver's tolerance (1e-3) by the rounding of its float32 kernel
// cache (as LIBSVM's), which grows with C·Σα.
const SVMKKTLimit = 1e-2

// SVMPredictionLimit bounds the share of W7's test predictions that may
// differ between two solves that stop at different points within the
// tolerance.
const SVMPredictionLimit = 0.005

// svmCheck: on the check rows, (a) every two-class solution satisfies the
// KKT conditions of its dual, recomputed from a dense float64 Gram matrix,
// and (b) a second solve without shrinking and with a cache of two
// columns (every column recomputed: the other paths of the solver)
// predicts the same labels.
func svmCheck(c *CheckEnv) (Check, error) {
	s, err := svmData(c.In)
	if err != nil {
		return Check{}, err
	}
	ch := Check{N: c.In.N(), Reference: "dense float64 KKT conditions; the solver without shrinking and with a 2-column cache"}
	svm := s.svm()
	p, err := svm.Fit(s.ztr, s.ytr)
	if err != nil {
		return ch, err
	}
	m := p.(*classify.SVMModel)
	worst, err := m.KKTViolation(s.ztr, s.ytr)
	if err != nil {
		return ch, err
	}
	second := svm
	second.NoShrinking, second.CacheMB = true, 1e-6
	p2, err := second.Fit(s.ztr, s.ytr)
	if err != nil {
		return ch, err
	}
	a, err := p.Predict(s.zte)
	if err != nil {
		return ch, err
	}
	b, err := p2.Predict(s.zte)
	if err != nil {
		return ch, err
	}
	ch.Criteria = append(ch.Criteria,
		newCriterion("largest KKT violation m(α) − M(α) over the pairs (dense float64)", worst, SVMKKTLimit, false),
		newCriterion("share of test predictions that differ without shrinking and cache", classify.ErrorRate(a, b), SVMPredictionLimit, false))
	ch.finish()
	return ch, nil
}

// svmPeerInputs writes the LDA embedding (training rows, then the
// held-out rows) and the labels for peer.py's W7.
func svmPeerInputs(in *Input, dir string) (string, map[string]any, error) {
	s, err := svmData(in)
	if err != nil {
		return "", nil, err
	}
	d := filepath.Join(dir, "W7")
	ntr, k := s.ztr.Dims()
	nte, _ := s.zte.Dims()
	z := mat.NewDense(ntr+nte, k, nil)
	z.Slice(0, ntr, 0, k).(*mat.Dense).Copy(s.ztr)
	z.Slice(ntr, ntr+nte, 0, k).(*mat.Dense).Copy(s.zte)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", nil, err
	}
	if err := data.WriteNPY(filepath.Join(d, "x.npy"), z); err != nil {
		return "", nil, err
	}
	if err := data.WriteLabelsNPY(filepath.Join(d, "y.npy"), append(append([]int(nil), s.ytr...), s.yte...)); err != nil {
		return "", nil, err
	}
	return d, map[string]any{"n_train": ntr, "n_test": nte, "gamma": s.gamma, "C": SVMC}, nil
}

// agreeSVM sets our test accuracy and number of support vectors beside
// the peer's.
func agreeSVM(r *Result, peer map[string]any) string {
	a, ok1 := num(r.Values["accuracy"])
	b, ok2 := num(peer["accuracy"])
	sa, ok3 := num(r.Values["support_vectors"])
	sb, ok4 := num(peer["support_vectors"])
	if !(ok1 && ok2 && ok3 && ok4) {
		return ""
	}
	return fmt.Sprintf("test accuracy %.4f vs %.4f, support vectors %.0f vs %.0f", a, b, sa, sb)
}
