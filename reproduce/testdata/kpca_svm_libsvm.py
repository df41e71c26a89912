#!/usr/bin/python3
"""Seed 000 Table IV's KPCA cells (linear SVM, C = 100) run in LIBSVM itself,
through scikit-learn, independently of our code: features scaled to
[-1, 1] on each training fold, RBF kernel PCA (gamma = 1/(2 sigma^2); the
paper's sigma = 1 is gamma = 0.5), a linear C-SVC with C = 100 (one-vs-one),
10-fold stratified CV under three fold assignments, the minimum error over
1..d components. From the repository root, with ../shared beside it:

    /usr/bin/python3 reproduce/testdata/kpca_svm_libsvm.py FILE [SKIP] [GAMMAS]

FILE an ARFF in ../shared/data/uci (rows with '?' dropped, the last column
the class), SKIP leading columns to drop (vowel.arff: 3), GAMMAS a comma
list (default 0.5). Needs Debian's python3-sklearn; never needed to build
or test the project (docs/reproduction.md, "The linear-SVM KPCA cells in
LIBSVM").
"""
import sys
import numpy as np
from sklearn.preprocessing import MinMaxScaler
from sklearn.decomposition import KernelPCA
from sklearn.svm import SVC
from sklearn.model_selection import StratifiedKFold

path = "../shared/data/uci/" + sys.argv[1]
skip = int(sys.argv[2]) if len(sys.argv) > 2 else 0
gammas = [float(g) for g in sys.argv[3].split(",")] if len(sys.argv) > 3 else [0.5]
rows, data = [], False
for line in open(path):
    line = line.strip()
    if not line or line.startswith("%"):
        continue
    if line.lower().startswith("@data"):
        data = True
        continue
    if data and "?" not in line:
        rows.append([v.strip().strip("'") for v in line.split(",")])
X = np.array([[float(v) for v in r[skip:-1]] for r in rows])
y = np.array([r[-1] for r in rows])
d = X.shape[1]
for gamma in gammas:
    for seed in [0, 1, 2]:
        e = np.zeros(d)
        for tr, te in StratifiedKFold(n_splits=10, shuffle=True, random_state=seed).split(X, y):
            sc = MinMaxScaler(feature_range=(-1, 1)).fit(X[tr])
            xtr, xte = sc.transform(X[tr]), sc.transform(X[te])
            kp = KernelPCA(n_components=d, kernel="rbf", gamma=gamma).fit(xtr)
            ztr, zte = kp.transform(xtr), kp.transform(xte)
            for k in range(1, d + 1):
                svm = SVC(kernel="linear", C=100).fit(ztr[:, :k], y[tr])
                e[k - 1] += np.sum(svm.predict(zte[:, :k]) != y[te])
        e = 100 * e / len(y)
        print(f"{sys.argv[1]} gamma {gamma} folds {seed}: {len(y)} rows, min error {e.min():.2f} % at {e.argmin() + 1} components; at 1..{d}: " + " ".join(f"{v:.1f}" for v in e))
