// Package cluster evaluates embeddings by clustering them, as seed 002
// (§4.1, eq. 30) does: normalized-cut spectral clustering of the reduced
// rows, k-means on the spectral embedding, and two external measures of
// agreement with the true classes.
//
//   - KMeans: Lloyd's algorithm from greedy k-means++ seeds, several
//     seeded restarts, the lowest inertia kept (kmeans.go).
//   - NormalizedCut: spectral clustering in the form of Ng, Jordan and
//     Weiss (2002) — an affinity graph W, the top k eigenvectors of
//     D^{-1/2}·W·D^{-1/2} (the relaxed normalized cut of Shi and Malik
//     2000), unit-length rows, k-means (spectral.go); the affinity (RBF
//     with the median heuristic, p nearest neighbours, self-tuning) is built
//     in affinity.go, the connection of a disconnected graph in connect.go.
//   - Accuracy: eq. 30, the fraction of rows on the diagonal of the
//     contingency table after the best one-to-one matching of clusters to
//     classes, found by the Hungarian algorithm (accuracy.go, hungarian.go).
//   - NMI: normalized mutual information (nmi.go).
//
// Every random step takes a seed, and parallel work uses fixed blocks, so
// the same inputs and seed give the same bits whatever GOMAXPROCS is.
// docs/clustering.md gives the defaults, the reasons for them and the
// measured sensitivity of the accuracy to the affinity.
package cluster
