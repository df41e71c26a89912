package data

import (
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/dimred/dimred/internal/testdata"
)

// sharedBytes returns (up to max bytes of) a file of ../shared/data,
// decompressed: real data as a fuzzing seed.
func sharedBytes(f *testing.F, rel string, max int) []byte {
	rc, err := openInput(testdata.Path(f, rel))
	if err != nil {
		f.Fatal(err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, int64(max)))
	return b
}

// sharedSeed is sharedBytes of a text file, cut after its last whole line.
func sharedSeed(f *testing.F, rel string, max int) string {
	s := string(sharedBytes(f, rel, max))
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		s = s[:i+1]
	}
	return s
}

// checkFuzzResult: a reader either returns an error naming the input or a
// valid data set; never a panic.
func checkFuzzResult(t *testing.T, name string, d *Dataset, err error) {
	if err != nil {
		if !strings.HasPrefix(err.Error(), name) {
			t.Fatalf("error %q does not name the input", err)
		}
		if len(err.Error()) > 1000 {
			t.Fatalf("error of %d bytes: a long field is echoed whole", len(err.Error()))
		}
		return
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("invalid dataset: %v", err)
	}
	if err := CheckFinite("rows", d.X); err != nil {
		t.Fatalf("non-finite value accepted: %v", err)
	}
}

// CSV and TSV, seeded with the shared scikit-learn, face and MNIST files,
// read with and without a header, labels and a label column.
func FuzzReadCSV(f *testing.F) {
	f.Add(sharedSeed(f, "data/sklearn/iris.csv", 2000))
	f.Add(sharedSeed(f, "data/sklearn/wine.csv", 2000))
	f.Add(sharedSeed(f, "data/faces/yale_32x32.csv.gz", 20000))
	f.Add(sharedSeed(f, "data/mnist/mnist10k.csv.gz", 8000))
	f.Add("label,a,b\n0,1,2\n1,\"3\",4e5\n,5,6\n")
	f.Add("a\tb\tclass\n1\t2\tx\n3\t4\ty\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, opt := range []Options{{}, {NoHeader: true, LabelColumn: "1"}, {NoLabels: true}, {Format: "tsv", Delimiter: '\t'}, {LabelColumn: "b"}} {
			d, err := ReadCSV(strings.NewReader(s), "fuzz.csv", opt)
			checkFuzzResult(t, "fuzz.csv", d, err)
		}
	})
}

// LIBSVM, seeded with rows of the shared iris data written as LIBSVM.
func FuzzReadLIBSVM(f *testing.F) {
	iris := sharedSeed(f, "data/sklearn/iris.csv", 1500)
	d, err := ReadCSV(strings.NewReader(iris), "iris.csv", Options{})
	if err != nil {
		f.Fatal(err)
	}
	var b strings.Builder
	for i, y := range d.Y {
		b.WriteString(d.ClassNames[y])
		for j, v := range d.X.RawRowView(i) {
			if v != 0 {
				b.WriteString(" " + strconv.Itoa(j+1) + ":" + strconv.FormatFloat(v, 'g', -1, 64))
			}
		}
		b.WriteByte('\n')
	}
	f.Add(b.String())
	f.Add("+1 1:0.5 3:-2 # comment\n-1 2:1e-3\n\n")
	f.Add("1 qid:3 1:1\n")
	// An index of 10⁸ in a one-line input is a valid file of 10⁸ features
	// (4 GB with their names), whose reading takes the fuzzer's time for
	// an input; the limit keeps such inputs to the parsing rules' errors.
	defer func(v int64) { MaxInputBytes = v }(MaxInputBytes)
	MaxInputBytes = 64 << 20
	f.Fuzz(func(t *testing.T, s string) {
		for _, opt := range []Options{{}, {NoLabels: true}, {NumFeatures: 4}} {
			d, err := ReadLIBSVM(strings.NewReader(s), "fuzz.svm", opt)
			checkFuzzResult(t, "fuzz.svm", d, err)
		}
	})
}
