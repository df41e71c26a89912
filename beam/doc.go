// Package dimredbeam runs dimred's fits from statistics, and its
// transforms, as Apache Beam pipelines (Beam Go SDK), so that data spread
// over many files — more than one machine holds — is fitted and embedded
// on an existing distributed engine: in-process on Beam's Go runner
// (Prism, the default), or on Flink, Spark and Dataflow through their
// portable runners.
//
// Fit (FitPipeline) reads the shards matched by a glob (CSV, TSV, LIBSVM,
// or C-order .npy with a labels file per shard, Input.Labels; gzipped when
// the name ends in ".gz") with the core readers' rules and errors
// (data.ScanReader), reduces every shard to the
// accumulable statistics of package stats (counts, means, scatter, class
// means: stats.Moments), merges them with a Beam combiner (MomentsFn) and
// fits the model from the merged statistics with the core library
// (method.StatsFitter): PCA, LDA, LQMI and SR with the supervised class
// graph, and their kernel forms (KPCA, GDA, KQMI, KSR) on Nyström features
// whose landmarks a first pass samples (NystromPipeline). The model equals
// the in-memory fit up to rounding (tests: 1e-9 relative on the
// statistics, on real data split into shards).
//
// Transform (TransformPipeline) applies a saved model to every shard and
// writes one output shard per input shard: CSV, or a .npy array with its
// labels in a text file beside it.
//
// A malformed row fails the pipeline with its file and line, or, when a
// dead-letter file is given, is written there (file:line: rule and value)
// and left out; nothing is dropped silently.
//
// This is a separate Go module so that the core library and the dimred
// command keep their small dependency set; the dimred-beam command
// (cmd/dimred-beam) is its command-line entry.
package dimredbeam
