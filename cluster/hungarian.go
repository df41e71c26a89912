package cluster

import "math"

// assign solves the linear assignment problem for an r×c cost matrix
// with r ≤ c: it returns, for every row i, a distinct column col[i] that
// together minimise Σᵢ cost[i][col[i]]. This is the Hungarian algorithm
// (Kuhn 1955, Munkres 1957) in its O(r²·c) shortest-augmenting-path form
// with row and column potentials u, v (Jonker and Volgenant 1987; the
// e-maxx formulation): rows are added one at a time, and each is matched by
// a Dijkstra-like search over reduced costs cost[i][j] − u[i] − v[j] ≥ 0,
// after which the potentials are updated so that matched edges keep reduced
// cost 0. Ties are broken by the lowest column index, so the matching is
// deterministic.
func assign(cost [][]float64) []int {
	r := len(cost)
	if r == 0 {
		return nil
	}
	c := len(cost[0])
	// 1-based arrays; column 0 is the virtual start.
	u := make([]float64, r+1)
	v := make([]float64, c+1)
	match := make([]int, c+1) // match[j]: row matched to column j (0: none)
	way := make([]int, c+1)
	minv := make([]float64, c+1)
	used := make([]bool, c+1)
	for i := 1; i <= r; i++ {
		match[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = math.Inf(1)
			used[j] = false
		}
		for {
			used[j0] = true
			i0 := match[j0]
			delta, j1 := math.Inf(1), 0
			for j := 1; j <= c; j++ {
				if used[j] {
					continue
				}
				if cur := cost[i0-1][j-1] - u[i0] - v[j]; cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= c; j++ {
				if used[j] {
					u[match[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if match[j0] == 0 {
				break
			}
		}
		for j0 != 0 { // augment along the path
			j1 := way[j0]
			match[j0] = match[j1]
			j0 = j1
		}
	}
	col := make([]int, r)
	for j := 1; j <= c; j++ {
		if match[j] > 0 {
			col[match[j]-1] = j - 1
		}
	}
	return col
}
