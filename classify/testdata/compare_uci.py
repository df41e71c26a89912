#!/usr/bin/python3
"""Our SVM against scikit-learn's SVC (LIBSVM) on UCI sets: accuracy,
identical predictions, support vectors, decision values, time. From the
repository root, with ../shared beside it:

    /usr/bin/python3 classify/testdata/compare_uci.py [GOMAXPROCS]

(docs/classifiers.md). Builds classify/testdata/svmcmp into /tmp.
"""
import numpy as np, time, json, subprocess, os, sys

subprocess.run(["go", "build", "-o", "/tmp/svmcmp", "./classify/testdata/svmcmp"], check=True)
from scipy.io import arff
from sklearn.svm import SVC

def load(f, drop_missing=True, classattr=None, drop=()):
    d, meta = arff.loadarff("../shared/data/uci/"+f)
    names = meta.names()
    cls = classattr or names[-1]
    cols=[]
    for n in names:
        if n == cls or n in drop: continue
        v = d[n]
        if v.dtype.kind in 'SO':
            u = [x for x in np.unique(v) if x not in (b'?',)]
            cols += [(v==x).astype(float) for x in u]
        else:
            cols.append(v.astype(float))
    X = np.column_stack(cols); y = np.unique(d[cls].astype(str), return_inverse=True)[1]
    ok = ~np.isnan(X).any(axis=1)
    X, y = X[ok], y[ok]
    lo, hi = X.min(0), X.max(0); rng = np.where(hi > lo, hi - lo, 1)
    return 2*(X-lo)/rng - 1, y

sets = {"german": load("credit.g.arff"), "vowel": load("vowel.arff", drop=("Train or Test","Speaker Number","Sex")),
        "sonar": load("sonar.arff", classattr="Class"), "glass": load("glass.arff", classattr="Type"),
        "dermatology": load("dermatology.arff"), "ionosphere": load("ionosphere.arff"), "diabetes": load("diabetes.arff")}
res = {}
for name, (X, y) in sets.items():
    rng = np.random.default_rng(0); p = rng.permutation(len(y)); X, y = X[p], y[p]
    ntr = int(0.7*len(y))
    d = "/tmp/cmpsvm_"+name; os.makedirs(d, exist_ok=True)
    np.save(d+"/xtr.npy", X[:ntr]); np.save(d+"/xte.npy", X[ntr:]); np.save(d+"/ytr.npy", y[:ntr].astype(float).reshape(-1,1))
    cases = [{"name":"linear","C":100.0,"gamma":0},{"name":"rbf","C":100.0,"gamma":0.5}]
    json.dump(cases, open(d+"/cases.json","w"))
    ours = json.loads(subprocess.run(["/tmp/svmcmp", d], capture_output=True, text=True, env=dict(os.environ, GOMAXPROCS=sys.argv[1] if len(sys.argv)>1 else "1")).stdout)
    for c in cases:
        kw = dict(kernel="linear") if c["gamma"]==0 else dict(kernel="rbf", gamma=c["gamma"])
        ts=[]
        for r in range(3):
            t=time.time(); m = SVC(C=c["C"], decision_function_shape="ovo", **kw).fit(X[:ntr], y[:ntr]); pred = m.predict(X[ntr:]); ts.append(time.time()-t)
        dec = m.decision_function(X[ntr:])
        if dec.ndim == 1: dec = -dec[:,None]
        o = ours[c["name"]]
        od = np.array(o["dec"]).reshape(o["dec_shape"])
        acc_s = np.mean(pred==y[ntr:]); acc_o = np.mean(np.array(o["pred"])==y[ntr:])
        print(f"{name:12s} {X.shape} {c['name']:6s} acc sk {acc_s:.4f} ours {acc_o:.4f} same-pred {np.mean(np.array(o['pred'])==pred):.4f} nSV {m.support_.size} {o['nsv']} maxdec-diff {np.abs(od-dec).max()/np.abs(dec).max():.2e} time sk {min(ts):.3f} ours {o['seconds']:.3f}", flush=True)
