package evaluate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxDim bounds a dimension ParseDims reads: no data set here has that
// many directions, and the loop over a range must end (k ≤ MaxInt always
// holds).
const maxDim = 1 << 30

// ParseDims parses a list of output dimensions for Protocol.Dims: comma-
// separated values and inclusive ranges, for example "1-10,20,50". The
// result is sorted and without repeats; an empty list, a value below 1 or
// above 2³⁰, a reversed range or a non-integer is an error naming the
// entry.
func ParseDims(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("dimensions %q: empty entry", s)
		}
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(strings.TrimSpace(hi))
		}
		switch {
		case err != nil:
			return nil, fmt.Errorf("dimensions %q: entry %q is not an integer or a range a-b", s, f)
		case a < 1:
			return nil, fmt.Errorf("dimensions %q: entry %q: dimensions start at 1", s, f)
		case b < a:
			return nil, fmt.Errorf("dimensions %q: range %q ends before it starts", s, f)
		case b > maxDim:
			return nil, fmt.Errorf("dimensions %q: entry %q: dimensions above %d cannot be computed", s, f, maxDim)
		case b-a > 1_000_000:
			return nil, fmt.Errorf("dimensions %q: range %q has more than a million dimensions", s, f)
		}
		for k := a; k <= b; k++ {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// DimsText writes an ascending list of dimensions compactly, runs of three
// or more as ranges: [1 2 3 4 10 20] is "1-4,10,20" (ParseDims reads it
// back).
func DimsText(dims []int) string {
	var parts []string
	for i := 0; i < len(dims); {
		j := i
		for j+1 < len(dims) && dims[j+1] == dims[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, fmt.Sprintf("%d-%d", dims[i], dims[j]))
		case j == i+1:
			parts = append(parts, strconv.Itoa(dims[i]), strconv.Itoa(dims[j]))
		default:
			parts = append(parts, strconv.Itoa(dims[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
