package plot

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/dimred/dimred/datasets"
)

// outDir returns the directory for figures: $DIMRED_PLOT_OUT if set (to
// keep them for inspection), else a temporary directory.
func outDir(t *testing.T) string {
	if d := os.Getenv("DIMRED_PLOT_OUT"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// decodePNG checks that path is a PNG of w×h pixels and returns it.
func decodePNG(t *testing.T, path string, w, h int) image.Image {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 {
		t.Fatalf("%s is empty", path)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if got := img.Bounds().Size(); got.X != w || got.Y != h {
		t.Fatalf("%s is %v pixels, want %dx%d", path, got, w, h)
	}
	return img
}

// countColor counts the pixels within tol (per 8-bit channel) of c.
func countColor(img image.Image, c color.Color, tol int) int {
	r0, g0, b0, _ := c.RGBA()
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			if abs(int(r>>8)-int(r0>>8)) <= tol && abs(int(g>>8)-int(g0>>8)) <= tol && abs(int(bb>>8)-int(b0>>8)) <= tol {
				n++
			}
		}
	}
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// iris2D returns the first two columns of iris and its labels.
func iris2D() (*mat.Dense, []int, []string) {
	d := datasets.Iris()
	z := mat.DenseCopyOf(d.X.Slice(0, 150, 2, 4)) // petal length and width
	return z, d.Y, []string{"setosa", "versicolor", "virginica"}
}

func TestScatterPNG(t *testing.T) {
	dir := outDir(t)
	z, y, names := iris2D()
	path := filepath.Join(dir, "scatter_iris.png")
	err := Scatter(path, z, y, names, ScatterOptions{Title: "Iris (petal length vs width)", XLabel: "petal length (cm)", YLabel: "petal width (cm)"})
	if err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, path, DefaultWidth, DefaultHeight)
	for c := range 3 {
		if n := countColor(img, palette[c], 10); n < 30 {
			t.Errorf("class %d colour has %d pixels; points or legend missing", c, n)
		}
	}

	// Custom size, unlabeled points in grey.
	y2 := append([]int(nil), y...)
	for i := 0; i < len(y2); i += 3 {
		y2[i] = -1
	}
	path = filepath.Join(dir, "scatter_unlabeled.png")
	if err := Scatter(path, z, y2, names, ScatterOptions{Title: "semi-supervised", Width: 640, Height: 480}); err != nil {
		t.Fatal(err)
	}
	img = decodePNG(t, path, 640, 480)
	if n := countColor(img, color.NRGBA{0xc6, 0xc6, 0xc6, 0xff}, 14); n < 30 {
		t.Errorf("unlabeled grey has %d pixels", n)
	}
}

func TestScatterFormats(t *testing.T) {
	dir := outDir(t)
	z, y, names := iris2D()
	for ext, magic := range map[string]string{".svg": "<?xml", ".pdf": "%PDF", ".jpg": "\xff\xd8", ".PNG": "\x89PNG"} {
		path := filepath.Join(dir, "scatter"+ext)
		if err := Scatter(path, z, y, names, ScatterOptions{Title: "format " + ext}); err != nil {
			t.Fatalf("%s: %v", ext, err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte(magic)) {
			t.Errorf("%s starts with %q, want %q", path, b[:min(len(b), 8)], magic)
		}
	}
}

func TestScatterManyClasses1DAndNoLabels(t *testing.T) {
	dir := outDir(t)
	// 40 classes in 2-D: by default a legend of two columns of 20 on an
	// 800 × 600 figure (one column at 900 pixels high); with MaxLegend
	// 20 none, and a note in the top right corner says so.
	const c = 40
	z := mat.NewDense(c*20, 2, nil)
	y := make([]int, c*20)
	for i := range y {
		k := i % c
		y[i] = k
		a := 2 * math.Pi * float64(k) / c
		z.Set(i, 0, 10*math.Cos(a)+0.3*math.Sin(float64(i)))
		z.Set(i, 1, 10*math.Sin(a)+0.3*math.Cos(float64(3*i)))
	}
	noteGrey := color.Gray{Y: 0x60}
	for _, tc := range []struct {
		file      string
		max, h    int
		legend    bool
		cols      int
		wantNote  string
		noteInImg bool
	}{
		{"scatter_40_legend.png", 0, DefaultHeight, true, 2, "", false},
		{"scatter_40_legend_tall.png", 0, 900, true, 1, "", false},
		{"scatter_40_nolegend.png", 20, DefaultHeight, false, 0, "no legend: 40 entries (at most 20)", true},
	} {
		opt := ScatterOptions{Title: "40 classes", MaxLegend: tc.max, Height: tc.h}
		p, err := ScatterPanel(z, y, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		if (p.legend != nil) != tc.legend || p.note != tc.wantNote {
			t.Errorf("%s: %d legend entries, note %q; want legend %v, note %q", tc.file, len(p.legend), p.note, tc.legend, tc.wantNote)
		}
		if tc.legend {
			cv := draw.New(vgimg.NewWith(vgimg.UseWH(vg.Length(DefaultWidth)*72/96, vg.Length(tc.h)*72/96)))
			if cols := legendColumns(p.legend, cv.Max.Y-cv.Min.Y-vg.Points(40), cv); len(cols) != tc.cols {
				t.Errorf("%s: %d legend columns, want %d", tc.file, len(cols), tc.cols)
			}
		}
		path := filepath.Join(dir, tc.file)
		if err := Scatter(path, z, y, nil, opt); err != nil {
			t.Fatal(err)
		}
		img := decodePNG(t, path, DefaultWidth, tc.h)
		corner := img.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(DefaultWidth-250, 0, DefaultWidth, 16))
		if n := countColor(corner, noteGrey, 12); (n > 20) != tc.noteInImg {
			t.Errorf("%s: %d note-grey pixels in the top right corner; want a note %v", tc.file, n, tc.noteInImg)
		}
	}

	// 1-D embedding: strip chart with the class names on the y axis.
	d := datasets.Wine()
	z1 := mat.DenseCopyOf(d.X.Slice(0, 178, 0, 1))
	path := filepath.Join(dir, "scatter_1d.png")
	if err := Scatter(path, z1, d.Y, []string{"cultivar 1", "cultivar 2", "cultivar 3"}, ScatterOptions{Title: "1-D", XLabel: "alcohol"}); err != nil {
		t.Fatal(err)
	}
	decodePNG(t, path, DefaultWidth, DefaultHeight)

	// No labels at all.
	path = filepath.Join(dir, "scatter_nolabels.png")
	if err := Scatter(path, z, nil, nil, ScatterOptions{}); err != nil {
		t.Fatal(err)
	}
	decodePNG(t, path, DefaultWidth, DefaultHeight)
}

func testSeries() []Series {
	dims := []float64{1, 2, 3, 4, 5, 6, 8, 10}
	mk := func(name string, base, slope float64, withErr bool) Series {
		s := Series{Name: name, X: dims}
		for _, d := range dims {
			s.Y = append(s.Y, base+slope/d)
			if withErr {
				s.YErr = append(s.YErr, 0.01+0.02/d)
			}
		}
		return s
	}
	return []Series{mk("KQMI", 0.05, 0.3, true), mk("LDA", 0.08, 0.35, true), mk("PCA", 0.1, 0.5, false)}
}

func TestCurvesPNG(t *testing.T) {
	dir := outDir(t)
	path := filepath.Join(dir, "curves.png")
	err := Curves(path, testSeries(), CurveOptions{Title: "error against dimension", XLabel: "dimension", YLabel: "error rate", YMin: 0, YMax: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, path, DefaultWidth, DefaultHeight)
	for c := range 3 {
		if n := countColor(img, palette[c], 10); n < 50 {
			t.Errorf("series %d colour has %d pixels", c, n)
		}
	}
	// Many series (dashed after ten), unnamed series, svg.
	var many []Series
	for i := range 24 {
		many = append(many, Series{Name: "m" + string(rune('A'+i)), X: []float64{1, 2, 3}, Y: []float64{float64(i), float64(i) + 1, float64(i) + 0.5}})
	}
	many = append(many, Series{X: []float64{1, 3}, Y: []float64{0, 30}})
	for _, f := range []string{"curves_many.png", "curves_many.svg"} {
		if err := Curves(filepath.Join(dir, f), many, CurveOptions{Height: 800}); err != nil {
			t.Fatal(err)
		}
	}
	decodePNG(t, filepath.Join(dir, "curves_many.png"), DefaultWidth, 800)
}

func TestGrid(t *testing.T) {
	dir := outDir(t)
	z, y, names := iris2D()
	var panels []*Panel
	for _, title := range []string{"method A", "method B", "method C"} {
		p, err := ScatterPanel(z, y, names, ScatterOptions{Title: title})
		if err != nil {
			t.Fatal(err)
		}
		panels = append(panels, p)
	}
	cp, err := CurvesPanel(testSeries(), CurveOptions{Title: "error", XLabel: "dimension"})
	if err != nil {
		t.Fatal(err)
	}
	panels = append(panels, cp)
	path := filepath.Join(dir, "grid.png")
	if err := Grid(path, panels, GridOptions{Title: "Iris, four panels", Cols: 2}); err != nil {
		t.Fatal(err)
	}
	decodePNG(t, path, 1000, 800)
	if err := Grid(filepath.Join(dir, "grid.pdf"), panels, GridOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	z, y, names := iris2D()
	nan := mat.DenseCopyOf(z)
	nan.Set(7, 1, math.NaN())
	inf := mat.DenseCopyOf(z)
	inf.Set(3, 0, math.Inf(-1))
	badY := append([]int(nil), y...)
	badY[5] = -3
	ok := testSeries()
	for _, tc := range []struct {
		name string
		run  func(path string) error
		want []string
	}{
		{"Z empty", func(p string) error { return Scatter(p, &mat.Dense{}, nil, nil, ScatterOptions{}) }, []string{"Z", "0 rows"}},
		{"Z nil", func(p string) error { return Scatter(p, nil, nil, nil, ScatterOptions{}) }, []string{"Z", "0 rows"}},
		{"labels", func(p string) error { return Scatter(p, z, y[:100], names, ScatterOptions{}) }, []string{"y has 100 labels", "150 rows"}},
		{"NaN", func(p string) error { return Scatter(p, nan, y, names, ScatterOptions{}) }, []string{"Z row 8, column 2", "NaN"}},
		{"Inf", func(p string) error { return Scatter(p, inf, y, names, ScatterOptions{}) }, []string{"Z row 4, column 1", "-Inf"}},
		{"label < -1", func(p string) error { return Scatter(p, z, badY, names, ScatterOptions{}) }, []string{"y[5] = -3"}},
		{"class names", func(p string) error { return Scatter(p, z, y, names[:2], ScatterOptions{}) }, []string{"classNames has 2 names", "class 2"}},
		{"size", func(p string) error { return Scatter(p, z, y, names, ScatterOptions{Width: -5}) }, []string{"-5"}},
		{"no series", func(p string) error { return Curves(p, nil, CurveOptions{}) }, []string{"no series"}},
		{"empty series", func(p string) error { return Curves(p, []Series{ok[0], {Name: "void"}}, CurveOptions{}) }, []string{`series 1 ("void")`, "empty"}},
		{"lengths", func(p string) error {
			return Curves(p, []Series{{Name: "s", X: []float64{1, 2}, Y: []float64{1}}}, CurveOptions{})
		}, []string{`series 0 ("s")`, "X has 2 values but Y has 1"}},
		{"NaN in Y", func(p string) error {
			return Curves(p, []Series{{Name: "s", X: []float64{1, 2}, Y: []float64{1, math.NaN()}}}, CurveOptions{})
		}, []string{`series 0 ("s")`, "Y[1] is NaN"}},
		{"YErr length", func(p string) error {
			return Curves(p, []Series{{Name: "s", X: []float64{1, 2}, Y: []float64{1, 2}, YErr: []float64{1}}}, CurveOptions{})
		}, []string{"YErr has 1 values"}},
		{"YErr negative", func(p string) error {
			return Curves(p, []Series{{Name: "s", X: []float64{1, 2}, Y: []float64{1, 2}, YErr: []float64{1, -1}}}, CurveOptions{})
		}, []string{"YErr[1] = -1"}},
		{"YMax", func(p string) error { return Curves(p, ok, CurveOptions{YMax: math.Inf(1)}) }, []string{"YMax = +Inf"}},
		{"grid empty", func(p string) error { return Grid(p, nil, GridOptions{}) }, []string{"no panels"}},
		{"grid nil panel", func(p string) error { return Grid(p, []*Panel{nil}, GridOptions{}) }, []string{"panel 0 is nil"}},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".png")
		err := tc.run(path)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s: file written despite the error", tc.name)
		}
	}
	// Bad paths.
	if err := Scatter(filepath.Join(dir, "x.bmp"), z, y, names, ScatterOptions{}); err == nil || !strings.Contains(err.Error(), `".bmp"`) {
		t.Errorf("unsupported extension: %v", err)
	}
	if err := Curves("", ok, CurveOptions{}); err == nil {
		t.Error("empty path: no error")
	}
	missing := filepath.Join(dir, "no", "such", "dir", "f.png")
	if err := Scatter(missing, z, y, names, ScatterOptions{}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing directory: %v", err)
	}
}

func TestClassStyle(t *testing.T) {
	seen := map[string]int{}
	for c := range 40 {
		col, shape := ClassStyle(c)
		r, g, b, _ := col.RGBA()
		key := fmt.Sprintf("%d/%d/%d/%T", r, g, b, shape)
		if prev, ok := seen[key]; ok {
			t.Errorf("classes %d and %d share colour and shape", prev, c)
		}
		seen[key] = c
		col2, shape2 := ClassStyle(c + 1)
		if col2 == col || fmt.Sprintf("%T", shape2) == fmt.Sprintf("%T", shape) {
			t.Errorf("classes %d and %d differ in only one of colour and shape", c, c+1)
		}
	}
	if col, _ := ClassStyle(-1); col == nil {
		t.Error("ClassStyle(-1) returned no colour")
	}
}

// Lines over a scatter: each is drawn in its colour (palette[3+i]), and a
// non-finite end point is an error naming the line.
func TestScatterLines(t *testing.T) {
	dir := outDir(t)
	z, y, names := iris2D()
	path := filepath.Join(dir, "scatter_lines.png")
	lines := []Line{{Name: "FDA", X0: 1, Y0: 0, X1: 7, Y1: 2.5}, {Name: "LPP", X0: 1, Y0: 2.5, X1: 7, Y1: 0}}
	if err := Scatter(path, z, y, names, ScatterOptions{Lines: lines}); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, path, DefaultWidth, DefaultHeight)
	for i := range lines {
		if n := countColor(img, palette[3+i], 10); n < 100 {
			t.Errorf("line %d colour has %d pixels; line missing", i, n)
		}
	}
	bad := []Line{{Name: "MIE0", X0: math.NaN()}}
	if err := Scatter(filepath.Join(dir, "bad.png"), z, y, names, ScatterOptions{Lines: bad}); err == nil || !strings.Contains(err.Error(), "MIE0") {
		t.Errorf("non-finite line: %v", err)
	}
}

// A curves axis of whole numbers (dimensions) is labelled at whole
// numbers only: steps of 1, 2 or 5 times a power of ten, at most about
// eight labels, covering the range.
func TestIntegerTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		step   float64
	}{{0.6, 13.4, 2}, {1, 8, 1}, {1, 9, 1}, {1, 10, 2}, {1, 40, 5}, {1, 100, 20}, {1, 1000, 200}, {-3, 3, 1}} {
		var labels []float64
		for _, tk := range (integerTicks{}).Ticks(c.lo, c.hi) {
			if tk.Value < c.lo || tk.Value > c.hi || tk.Value != math.Trunc(tk.Value) {
				t.Errorf("[%g, %g]: tick at %g", c.lo, c.hi, tk.Value)
			}
			if tk.Label != "" {
				if tk.Label != strconv.FormatFloat(tk.Value, 'f', -1, 64) || math.Mod(tk.Value, c.step) != 0 {
					t.Errorf("[%g, %g]: label %q at %g, want multiples of %g", c.lo, c.hi, tk.Label, tk.Value, c.step)
				}
				labels = append(labels, tk.Value)
			}
		}
		if len(labels) < 2 || len(labels) > 9 || labels[len(labels)-1]-labels[0] < (c.hi-c.lo)-2*c.step {
			t.Errorf("[%g, %g]: labels %v", c.lo, c.hi, labels)
		}
	}
	if integralX([]Series{{X: []float64{1, 2.5}, Y: []float64{0, 0}}}) || !integralX([]Series{{X: []float64{1, 2}, Y: []float64{0, 0}}}) {
		t.Error("integralX")
	}
}

// A legend wider than half the figure (long class names) is left out,
// and the note in the top right corner says so.
func TestScatterLegendTooWide(t *testing.T) {
	z, y, _ := iris2D()
	long := strings.Repeat("a very long class name ", 6)
	names := []string{"setosa " + long, "versicolor " + long, "virginica " + long}
	for _, tc := range []struct {
		names []string
		note  bool
	}{{names, true}, {[]string{"setosa", "versicolor", "virginica"}, false}} {
		path := filepath.Join(outDir(t), "scatter_wide_legend.png")
		if err := Scatter(path, z, y, tc.names, ScatterOptions{}); err != nil {
			t.Fatal(err)
		}
		img := decodePNG(t, path, DefaultWidth, DefaultHeight)
		corner := img.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(DefaultWidth-250, 0, DefaultWidth, 16))
		if n := countColor(corner, color.Gray{Y: 0x60}, 12); (n > 20) != tc.note {
			t.Errorf("names %.20q…: %d note-grey pixels in the top right corner; want a note %v", tc.names[0], n, tc.note)
		}
	}
}
