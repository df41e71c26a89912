package plot

import (
	"fmt"
	"image/color"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// GridOptions control [Grid].
type GridOptions struct {
	// Title is drawn above all panels.
	Title string
	// Cols is the number of panels per row: 0 means min(len(panels), 3).
	// Rows are added as needed, filled left to right.
	Cols int
	// Width and Height are the size of the whole figure in pixels at 96
	// dpi; 0 means 500 pixels per column and 400 per row.
	Width, Height int
}

// Grid writes several panels, made by [ScatterPanel] or [CurvesPanel], as
// one figure of rows × cols tiles to path (format from the extension),
// for example the 2-D embeddings of several methods side by side.
func Grid(path string, panels []*Panel, opt GridOptions) error {
	format, err := outputFormat(path)
	if err != nil {
		return err
	}
	if len(panels) == 0 {
		return fmt.Errorf("plot: grid: no panels")
	}
	for i, p := range panels {
		if p == nil || p.plot == nil {
			return fmt.Errorf("plot: grid: panel %d is nil", i)
		}
	}
	cols := opt.Cols
	if cols < 0 {
		return fmt.Errorf("plot: grid: Cols = %d, want ≥ 0", cols)
	}
	if cols == 0 {
		cols = min(len(panels), 3)
	}
	cols = min(cols, len(panels))
	rows := (len(panels) + cols - 1) / cols
	w, h := opt.Width, opt.Height
	if w == 0 {
		w = 500 * cols
	}
	if h == 0 {
		h = 400 * rows
	}
	w, h, err = size("grid", w, h)
	if err != nil {
		return err
	}
	return render(path, format, w, h, func(dc draw.Canvas) {
		if opt.Title != "" {
			sty := text.Style{
				Color:   color.Black,
				Font:    sans(16),
				XAlign:  draw.XCenter,
				YAlign:  draw.YTop,
				Handler: gplot.DefaultTextHandler,
			}
			pad := vg.Points(6)
			dc.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y - pad}, opt.Title)
			dc = draw.Crop(dc, 0, 0, 0, -(sty.Height(opt.Title) + 2*pad))
		}
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(10), PadY: vg.Points(10),
			PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
		for i, p := range panels {
			p.draw(tiles.At(dc, i%cols, i/cols))
		}
	})
}
