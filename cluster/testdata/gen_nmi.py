# Generates the scikit-learn literals of nmi_test.go (run once with
# /usr/bin/python3, python3-sklearn 1.2.1; the tests never run Python):
#   /usr/bin/python3 cluster/testdata/gen_nmi.py
import numpy as np
import sklearn
from sklearn.metrics import normalized_mutual_info_score as nmi

rng = np.random.RandomState(2024)
cases = [
    ([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 2, 2]),          # identical up to renaming
    ([0, 0, 1, 1], [0, 1, 0, 1]),                      # independent
    ([0, 0, 0, 0, 0], [0, 1, 2, 0, 1]),                # one cluster
    ([3, 3, 3], [7, 7, 7]),                            # one cluster, one class
    ([0, 1, 2, 3, 4, 5], [0, 0, 0, 1, 1, 1]),          # every row its own cluster
]
for n, kc, kl in [(30, 3, 3), (40, 5, 3), (25, 2, 6), (60, 6, 6), (50, 4, 7)]:
    cases.append((list(rng.randint(0, kc, n)), list(rng.randint(0, kl, n))))
# A correlated labeling: truth with 20 % of the rows relabelled.
t = rng.randint(0, 4, 80)
p = t.copy()
flip = rng.rand(80) < 0.2
p[flip] = rng.randint(0, 4, flip.sum())
cases.append((list(p), list(t)))

print("// scikit-learn %s normalized_mutual_info_score(truth, pred, average_method=...)" % sklearn.__version__)
for p, t in cases:
    vals = [nmi(t, p, average_method=m) for m in ("arithmetic", "geometric", "max", "min")]
    print("{pred: []int{%s}, truth: []int{%s}, want: [4]float64{%s}}," % (
        ", ".join(map(str, p)), ", ".join(map(str, t)), ", ".join("%.17g" % v for v in vals)))
