package data

import (
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func readARFFString(s string, opt Options) (*Dataset, error) {
	return ReadARFF(strings.NewReader(s), "t.arff", opt)
}

// quirkyARFF has the quirks of the Weka files: comments, mixed-case
// keywords, quoted names with spaces and quotes, nominal declarations with
// spaces and quotes, ranges after integer, missing values, CRLF.
const quirkyARFF = "% comment at the top\r\n" +
	"@RELATION 'quirky one's name\r\n" +
	"\r\n" +
	"@Attribute 'Train or Test' { Train, Test}\r\n" +
	"@attribute \"it's \\\"quoted\\\"\" REAL % trailing comment\r\n" +
	"@ATTRIBUTE score {0,1,2,3}\r\n" +
	"@attribute purpose { 'new car', 'used car', furniture/equipment, radio/tv}\r\n" +
	"@attribute age integer [1,10]\r\n" +
	"@attribute 'class' { good, 'very bad'}\r\n" +
	"@DATA\r\n" +
	"% a comment row\r\n" +
	"Train, 1.5, 3, 'new car', 7, good\r\n" +
	"Test,-2,0,furniture/equipment,?,'very bad' % comment after a row\r\n" +
	"\r\n" +
	"'Test',0,2,\"radio/tv\",4,?\r\n"

func TestReadARFFQuirks(t *testing.T) {
	d, err := readARFFString(quirkyARFF, Options{Missing: "drop"})
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"Train or Test", `it's "quoted"`, "score", "purpose", "age"}
	if !slices.Equal(d.FeatureNames, wantNames) {
		t.Errorf("FeatureNames = %q, want %q", d.FeatureNames, wantNames)
	}
	want := mat.NewDense(2, 5, []float64{
		0, 1.5, 3, 0, 7,
		1, 0, 2, 3, 4,
	})
	if !mat.Equal(d.X, want) {
		t.Errorf("X = %v", mat.Formatted(d.X))
	}
	if !slices.Equal(d.ClassNames, []string{"good", "very bad"}) || !slices.Equal(d.Y, []int{0, Unlabeled}) {
		t.Errorf("ClassNames %q Y %v", d.ClassNames, d.Y)
	}
	if d.DroppedRows != 1 || d.Name != "t" {
		t.Errorf("DroppedRows %d Name %q", d.DroppedRows, d.Name)
	}

	// Missing values are rejected by default, naming file, line, attribute.
	_, err = readARFFString(quirkyARFF, Options{})
	if err == nil || err.Error() != `t.arff:13: attribute "age" is missing ('?'); give --missing drop (data.Options.Missing = "drop") to drop such rows` {
		t.Errorf("missing value error = %v", err)
	}
	// ... unless the attribute is dropped.
	d, err = readARFFString(quirkyARFF, Options{Drop: []string{"age", "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := d.Dims(); r != 3 || c != 3 || d.DroppedRows != 0 {
		t.Errorf("drop age: %d×%d dropped %d", r, c, d.DroppedRows)
	}

	// One-hot.
	d, err = readARFFString(quirkyARFF, Options{Missing: "drop", Nominal: "onehot", Drop: []string{"it's \"quoted\""}})
	if err != nil {
		t.Fatal(err)
	}
	wantNames = []string{"Train or Test=Train", "Train or Test=Test", "score=0", "score=1", "score=2", "score=3",
		"purpose=new car", "purpose=used car", "purpose=furniture/equipment", "purpose=radio/tv", "age"}
	if !slices.Equal(d.FeatureNames, wantNames) {
		t.Errorf("one-hot FeatureNames = %q", d.FeatureNames)
	}
	want = mat.NewDense(2, 11, []float64{
		1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 7,
		0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 4,
	})
	if !mat.Equal(d.X, want) {
		t.Errorf("one-hot X = %v", mat.Formatted(d.X))
	}
}

func TestReadARFFClassAttr(t *testing.T) {
	in := `@relation r
@attribute Type {b,a}
@attribute x numeric
@attribute y {3,1,2}
@data
a,1,2
b,2,3
`
	// No attribute "class": the last one, y, with numeric values kept in
	// declaration order.
	d, err := readARFFString(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.ClassNames, []string{"3", "1", "2"}) || !slices.Equal(d.Y, []int{2, 0}) {
		t.Errorf("default class: %q %v", d.ClassNames, d.Y)
	}
	if !slices.Equal(d.FeatureNames, []string{"Type", "x"}) || d.X.At(0, 0) != 1 || d.X.At(1, 0) != 0 {
		t.Errorf("features %q X %v", d.FeatureNames, mat.Formatted(d.X))
	}
	for _, spec := range []string{"Type", "type", "1"} {
		d, err = readARFFString(in, Options{ClassAttr: spec})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.ClassNames, []string{"b", "a"}) || !slices.Equal(d.Y, []int{1, 0}) {
			t.Errorf("ClassAttr %q: %q %v", spec, d.ClassNames, d.Y)
		}
		// y is a nominal feature whose values are all numbers: their value.
		if d.X.At(0, 1) != 2 || d.X.At(1, 1) != 3 {
			t.Errorf("ClassAttr %q: numeric nominal X %v", spec, mat.Formatted(d.X))
		}
	}
	// A numeric class attribute: labels as text, numeric order.
	d, err = readARFFString(in, Options{ClassAttr: "x"})
	if err != nil || !slices.Equal(d.ClassNames, []string{"1", "2"}) || !slices.Equal(d.Y, []int{0, 1}) {
		t.Errorf("numeric class: %v %q %v", err, d.ClassNames, d.Y)
	}
	// Classes overrides the declaration order.
	d, err = readARFFString(in, Options{ClassAttr: "Type", Classes: []string{"a", "b"}})
	if err != nil || !slices.Equal(d.Y, []int{0, 1}) {
		t.Errorf("Classes: %v %v", err, d.Y)
	}
	d, err = readARFFString(in, Options{NoLabels: true})
	if err != nil || d.Y != nil {
		t.Fatalf("NoLabels: %v", err)
	}
	if _, p := d.Dims(); p != 3 {
		t.Errorf("NoLabels: %d features, want 3", p)
	}
}

func TestReadARFFSparse(t *testing.T) {
	in := `@relation s
@attribute a numeric
@attribute b {x,y,z}
@attribute c numeric
@attribute class {p,q}
@data
{0 1.5, 2 3}
{1 z, 3 q}, {2.5}
{}
1,y,2,q,{0.5}
`
	if _, err := readARFFString(in, Options{}); err == nil || !strings.Contains(err.Error(), "t.arff:8: instance weight {2.5}: dimred's methods weigh every row equally") {
		t.Fatalf("weights other than 1 read without a word: %v", err)
	}
	d, err := readARFFString(in, Options{Weights: "ignore"})
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(4, 3, []float64{1.5, 0, 3, 0, 2, 0, 0, 0, 0, 1, 1, 2})
	if !mat.Equal(d.X, want) || !slices.Equal(d.Y, []int{0, 1, 0, 1}) {
		t.Errorf("X %v Y %v", mat.Formatted(d.X), d.Y)
	}
}

func TestReadARFFErrors(t *testing.T) {
	hdr := "@relation r\n@attribute a numeric\n@attribute b {x,y}\n@attribute class {p,q}\n@data\n"
	cases := []struct {
		name, in string
		opt      Options
		wants    []string
	}{
		{"empty", "", Options{}, []string{"t.arff", "empty file"}},
		{"comments only", "% nothing\n\n", Options{}, []string{"t.arff", "empty file"}},
		{"no data section", "@relation r\n@attribute a numeric\n", Options{}, []string{"t.arff:2", "no @data"}},
		{"no rows", hdr, Options{}, []string{"t.arff:5", "no data rows"}},
		{"unknown class attr", hdr + "1,x,p\n", Options{ClassAttr: "target"}, []string{"t.arff:5", `class attribute "target" not found`, `"a", "b", "class"`}},
		{"class index range", hdr + "1,x,p\n", Options{ClassAttr: "9"}, []string{"t.arff:5", "out of range 1..3"}},
		{"unknown drop", hdr + "1,x,p\n", Options{Drop: []string{"zz"}}, []string{"t.arff:5", `cannot drop attribute "zz"`}},
		{"drop class", hdr + "1,x,p\n", Options{Drop: []string{"class"}}, []string{"t.arff:4", "is the class attribute"}},
		{"NaN", hdr + "1,x,p\nNaN,y,q\n", Options{}, []string{"t.arff:7", `attribute "a"`, `"NaN"`, "not finite"}},
		{"non-numeric", hdr + "abc,x,p\n", Options{}, []string{"t.arff:6", `attribute "a"`, `cannot parse "abc"`}},
		{"bad nominal", hdr + "1,w,p\n", Options{}, []string{"t.arff:6", `attribute "b"`, `value "w" is not one of its declared values {x, y}`}},
		{"bad class", hdr + "1,x,r\n", Options{}, []string{"t.arff:6", `class attribute "class"`, `value "r"`}},
		{"ragged", hdr + "1,x\n", Options{}, []string{"t.arff:6", "row has 2 values", "declares 3 attributes"}},
		{"missing", hdr + "?,x,p\n", Options{}, []string{"t.arff:6", `attribute "a" is missing ('?'); give --missing drop`}},
		{"all dropped", hdr + "?,x,p\n", Options{Missing: "drop"}, []string{"t.arff:5", "all 1 rows have missing values"}},
		{"string attr", "@relation r\n@attribute name string\n@attribute a numeric\n@data\n'x',1\n", Options{NoLabels: true}, []string{"t.arff:2", `attribute "name" is a string attribute`, "drop it"}},
		{"date attr", "@relation r\n@attribute when date 'yyyy'\n@attribute a numeric\n@data\n'x',1\n", Options{NoLabels: true}, []string{"t.arff:2", `"when" is a date attribute`}},
		{"unknown type", "@relation r\n@attribute a float\n@data\n", Options{}, []string{"t.arff:2", `unknown type "float"`}},
		{"relational", "@relation r\n@attribute a relational\n@data\n", Options{}, []string{"t.arff:2", "relational"}},
		{"unclosed nominal", "@relation r\n@attribute a {x,y\n@data\n", Options{}, []string{"t.arff:2", "without a closing '}'"}},
		{"empty nominal", "@relation r\n@attribute a {}\n@data\n", Options{}, []string{"t.arff:2", "empty nominal"}},
		{"duplicate value", "@relation r\n@attribute a {x,x}\n@data\n", Options{}, []string{"t.arff:2", `"x" is declared twice`}},
		{"duplicate attr", "@relation r\n@attribute a numeric\n@attribute a numeric\n@data\n", Options{}, []string{"t.arff:3", "declared twice (first on line 2)"}},
		{"unterminated quote", "@relation r\n@attribute 'a numeric\n@data\n", Options{}, []string{"t.arff:2", "unterminated"}},
		{"junk in header", "@relation r\nfoo bar\n", Options{}, []string{"t.arff:2", `unexpected "foo bar"`}},
		{"data first", "@data\n1\n", Options{}, []string{"t.arff:1", "@data before any @attribute"}},
		{"sparse index range", hdr + "{5 1}\n", Options{}, []string{"t.arff:6", "sparse index 5 is out of range 0..2"}},
		{"sparse duplicate", hdr + "{0 1, 0 2}\n", Options{}, []string{"t.arff:6", "sparse index 0 appears twice"}},
		{"sparse unclosed", hdr + "{0 1, 1 x\n", Options{}, []string{"t.arff:6", "without a closing '}'"}},
		{"sparse bad index", hdr + "{a 1}\n", Options{}, []string{"t.arff:6", "0-based integer index"}},
		{"bad separator", hdr + "'1' 2,x,p\n", Options{}, []string{"t.arff:6", "want ','"}},
		{"unterminated value", hdr + "1,'x,p\n", Options{}, []string{"t.arff:6", "unterminated"}},
		{"bad option", hdr + "1,x,p\n", Options{Nominal: "dummy"}, []string{"t.arff", "Options.Nominal"}},
		{"bad weights option", hdr + "1,x,p\n", Options{Weights: "use"}, []string{"t.arff", "--arff-weights (Options.Weights)", `"use"`}},
		{"dense weight", hdr + "1,x,p,{1}\n2,y,q,{ 3 }\n", Options{}, []string{"t.arff:7", "instance weight { 3 }", "--arff-weights ignore"}},
		{"sparse weight", hdr + "{0 1}, {0.5}\n", Options{}, []string{"t.arff:6", "instance weight {0.5}"}},
		{"weight not a number", hdr + "1,x,p,{w}\n", Options{Weights: "ignore"}, []string{"t.arff:6", "instance weight {w} is not a finite number ≥ 0"}},
		{"negative weight", hdr + "{0 1}, {-1}\n", Options{Weights: "ignore"}, []string{"t.arff:6", "{-1} is not a finite number"}},
		{"sparse weight unclosed", hdr + "{0 1}, {2\n", Options{Weights: "ignore"}, []string{"t.arff:6", "instance weight without a closing '}'"}},
	}
	for _, c := range cases {
		_, err := readARFFString(c.in, c.opt)
		wantErr(t, c.name, err, c.wants...)
	}
}

func FuzzReadARFF(f *testing.F) {
	f.Add(quirkyARFF)
	for _, file := range []string{"iris", "credit.a", "zoo", "dermatology"} { // real files: nominal, missing, string attributes
		f.Add(sharedSeed(f, "data/uci/"+file+".arff", 6000))
	}
	f.Add("@relation s\n@attribute a numeric\n@attribute b {x,y}\n@attribute class {p,q}\n@data\n{0 1.5, 1 y}\n1,x,p,{2}\n")
	f.Fuzz(func(t *testing.T, s string) {
		for _, opt := range []Options{{}, {Missing: "drop", Nominal: "onehot"}} {
			d, err := ReadARFF(strings.NewReader(s), "fuzz.arff", opt)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "fuzz.arff") {
					t.Fatalf("error %q does not name the file", err)
				}
				continue
			}
			if err := d.Validate(); err != nil {
				t.Fatalf("invalid dataset: %v", err)
			}
		}
	})
}
