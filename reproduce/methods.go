package reproduce

import (
	"fmt"

	"github.com/dimred/dimred/classify"
	"github.com/dimred/dimred/data"
	"github.com/dimred/dimred/evaluate"
	"github.com/dimred/dimred/method"
)

// PaperMethod maps a paper's name of a method (a table column or row) to
// dimred's.
type PaperMethod struct{ Paper, Ours string }

// paperMethods builds the methods of list selected by sel (paper names;
// empty: all) with the paper's settings params(name), and returns them
// with their paper names. A selection that names no method of the list is
// an error.
func paperMethods(list []PaperMethod, sel []string, params func(name string) (map[string]string, error)) ([]evaluate.NamedMethod, []string, error) {
	var ms []evaluate.NamedMethod
	var paper []string
	for _, m := range list {
		if !selected(sel, m.Paper) {
			continue
		}
		p, err := params(m.Ours)
		if err != nil {
			return nil, nil, err
		}
		mm, err := method.New(m.Ours, p)
		if err != nil {
			return nil, nil, err
		}
		ms = append(ms, evaluate.NamedMethod{Name: m.Ours, Method: mm})
		paper = append(paper, m.Paper)
	}
	if len(ms) == 0 {
		var names []string
		for _, m := range list {
			names = append(names, m.Paper)
		}
		return nil, nil, fmt.Errorf("methods %v: none of %v", sel, names)
	}
	return ms, paper, nil
}

// perClassSplits is the protocol of seeds 003 and 004: repeats random
// splits with nu training rows per class (the rest test), the methods
// fitted on the training rows after the preprocessing scale, 1-NN on the
// embedding at dimensions 1..maxDims.
func perClassSplits(ds *data.Dataset, ms []evaluate.NamedMethod, nu int, scale string, repeats, maxDims int, seed uint64) (*evaluate.Report, error) {
	return evaluate.Run(ds, evaluate.Protocol{Preprocess: scale, Methods: ms, Classifiers: []classify.Classifier{classify.KNN{K: 1}},
		PerClass: nu, Repeats: repeats, Seed: seed, MaxDims: maxDims})
}
