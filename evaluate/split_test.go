package evaluate

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// ecoliLabels has Ecoli's class sizes: 143, 77, 52, 35, 20, 5, 2, 2,
// interleaved so rows of a class are not contiguous.
func ecoliLabels() []int {
	sizes := []int{143, 77, 52, 35, 20, 5, 2, 2}
	var y []int
	for len(y) < 336 {
		for c, s := range sizes {
			if s > 0 {
				y = append(y, c)
				sizes[c]--
			}
		}
	}
	return y
}

func TestStratifiedKFold(t *testing.T) {
	y := ecoliLabels()
	n := len(y)
	for _, k := range []int{2, 3, 10, 336} {
		folds, err := StratifiedKFold(y, k, 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(folds) != k {
			t.Fatalf("k=%d: %d folds", k, len(folds))
		}
		seen := make([]int, n)
		lo, hi := n, 0
		for _, f := range folds {
			if !slices.IsSorted(f) {
				t.Errorf("k=%d: fold not sorted", k)
			}
			lo, hi = min(lo, len(f)), max(hi, len(f))
			for _, i := range f {
				seen[i]++
			}
		}
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("k=%d: row %d in %d folds, want exactly 1", k, i, s)
			}
		}
		if hi-lo > 1 {
			t.Errorf("k=%d: fold sizes %d..%d differ by more than one", k, lo, hi)
		}
		// Stratification: each class's count per fold differs by at most
		// one across folds, so a class with fewer than k rows lies in
		// distinct folds.
		for c := 0; c < 8; c++ {
			clo, chi := n, 0
			for _, f := range folds {
				m := 0
				for _, i := range f {
					if y[i] == c {
						m++
					}
				}
				clo, chi = min(clo, m), max(chi, m)
			}
			if chi-clo > 1 {
				t.Errorf("k=%d class %d: per-fold counts %d..%d", k, c, clo, chi)
			}
		}
	}
	// The two 2-row classes (6 and 7) are spread over four distinct folds:
	// dealing continues where the previous class stopped.
	folds, _ := StratifiedKFold(y, 10, 7)
	where := map[int]int{}
	for f, rows := range folds {
		for _, i := range rows {
			if y[i] >= 6 {
				if _, dup := where[f]; dup {
					t.Errorf("fold %d holds two rows of the 2-row classes", f)
				}
				where[f] = i
			}
		}
	}
	// Determinism by seed.
	a, _ := StratifiedKFold(y, 10, 7)
	b, _ := StratifiedKFold(y, 10, 8)
	if !reflect.DeepEqual(a, folds) {
		t.Error("same seed gave different folds")
	}
	if reflect.DeepEqual(a, b) {
		t.Error("different seeds gave the same folds")
	}
}

func TestStratifiedKFoldErrors(t *testing.T) {
	for _, tc := range []struct {
		y    []int
		k    int
		frag string
	}{
		{[]int{0, 1, 0, 1}, 1, "k = 1 folds, want 2 ≤ k ≤ 4"},
		{[]int{0, 1, 0, 1}, 5, "k = 5 folds, want 2 ≤ k ≤ 4"},
		{nil, 2, "want 2 ≤ k ≤ 0"},
		{[]int{0, -1, 0, 1}, 2, "row 2 has label -1"},
	} {
		if _, err := StratifiedKFold(tc.y, tc.k, 1); err == nil || !strings.Contains(err.Error(), tc.frag) {
			t.Errorf("StratifiedKFold(%v, %d) error = %v, want %q", tc.y, tc.k, err, tc.frag)
		}
	}
}

func TestPerClassSplit(t *testing.T) {
	y := []int{0, 0, 0, 0, 1, 1, 1, 3, 3, 3, 3, 3} // class 2 absent
	tr, te, err := PerClassSplit(y, 2, 11)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) != 6 || len(te) != 6 {
		t.Fatalf("train %v test %v", tr, te)
	}
	cnt := map[int]int{}
	for _, i := range tr {
		cnt[y[i]]++
	}
	if !reflect.DeepEqual(cnt, map[int]int{0: 2, 1: 2, 3: 2}) {
		t.Errorf("training rows per class %v, want 2 each", cnt)
	}
	all := slices.Sorted(slices.Values(append(slices.Clone(tr), te...)))
	for i, v := range all {
		if v != i {
			t.Fatalf("train ∪ test = %v, want a partition of 0..%d", all, len(y)-1)
		}
	}
	if !slices.IsSorted(tr) || !slices.IsSorted(te) {
		t.Error("split not sorted")
	}
	tr2, te2, _ := PerClassSplit(y, 2, 11)
	if !reflect.DeepEqual(tr, tr2) || !reflect.DeepEqual(te, te2) {
		t.Error("same seed gave different splits")
	}
	differ := false
	for s := uint64(0); s < 10 && !differ; s++ {
		tr3, _, _ := PerClassSplit(y, 2, s)
		differ = !reflect.DeepEqual(tr, tr3)
	}
	if !differ {
		t.Error("ten seeds all gave the same split")
	}

	for _, tc := range []struct {
		nu   int
		frag string
	}{
		{0, "ν = 0 training rows per class, want ν ≥ 1"},
		{3, "class 1 has 3 rows; ν = 3"},
		{9, "class 0 has 4 rows"},
	} {
		if _, _, err := PerClassSplit(y, tc.nu, 1); err == nil || !strings.Contains(err.Error(), tc.frag) {
			t.Errorf("PerClassSplit(ν=%d) error = %v, want %q", tc.nu, err, tc.frag)
		}
	}
	if _, _, err := PerClassSplit([]int{0, -1, 1}, 1, 1); err == nil || !strings.Contains(err.Error(), "row 2 has label -1") {
		t.Errorf("negative label: %v", err)
	}
}

func TestBalancedSubset(t *testing.T) {
	// 26 classes of 40 rows, plus one small class of 3 and unlabeled rows.
	var y []int
	for c := 0; c < 26; c++ {
		for i := 0; i < 40; i++ {
			y = append(y, c)
		}
	}
	y = append(y, 26, 26, 26, -1, -1)
	idx, err := BalancedSubset(y, 800, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx) != 800 {
		t.Fatalf("%d rows, want 800", len(idx))
	}
	counts := map[int]int{}
	for i, r := range idx {
		if i > 0 && r <= idx[i-1] {
			t.Fatal("indices not increasing / repeated")
		}
		if y[r] < 0 {
			t.Fatal("drew an unlabeled row")
		}
		counts[y[r]]++
	}
	// 27 classes: class 26 gives its 3 rows, the other 797 are spread over
	// 26 classes as 30 or 31.
	if counts[26] != 3 {
		t.Fatalf("small class gave %d rows, want all 3", counts[26])
	}
	for c := 0; c < 26; c++ {
		if counts[c] != 30 && counts[c] != 31 {
			t.Fatalf("class %d has %d rows, want 30 or 31", c, counts[c])
		}
	}
	again, _ := BalancedSubset(y, 800, 1)
	if !slices.Equal(idx, again) {
		t.Fatal("same seed, different subset")
	}
	other, _ := BalancedSubset(y, 800, 2)
	if slices.Equal(idx, other) {
		t.Fatal("different seeds gave the same subset")
	}
	if _, err := BalancedSubset(y, 2000, 1); err == nil {
		t.Fatal("more rows than exist accepted")
	}
	if _, err := BalancedSubset(y, 0, 1); err == nil {
		t.Fatal("zero rows accepted")
	}
}
