"""olctc beside ODTlearn's FlowOCT, the MIP tree learner a Python user would try first, on the bench's runs.

ODTlearn 1.1 needs python-mip 1.15 for CBC and olctc needs python-mip 2.0, so the two cannot share one
environment: FlowOCT runs in another interpreter (``--odtlearn-python``), one process per (data set, seed),
on exactly the train/test rows the bench folder used. The bench folder holds olctc's runs (and CART's,
STreeD's); this script adds FlowOCT's beside them in its own file and prints `olctc bench report`'s tables
with FlowOCT's columns added.

    python -m venv /tmp/odtvenv && /tmp/odtvenv/bin/pip install "odtlearn[cbc]==1.1.0"
    olctc bench models --models OLCT,CART,STreeD --authors-split --fixed-C anchors --time-limit 60 \\
        --jobs 2 -o peers60
    python benchmarks/peers_odtlearn.py peers60 --odtlearn-python /tmp/odtvenv/bin/python --jobs 2

FlowOCT is run as its documentation shows: ODTlearn's ``Binarizer`` (4 uniform bins per real column, fitted
on the training part; columns already 0/1 are kept as they are), ``depth`` the bench's depth (2^d - 1
branching nodes, as the bench's CART of that depth and as olctc's d layers, the last of which split into
the two classes), ``_lambda=0``, CBC with the bench's threads and time limit. ``obj_mode="balance"`` makes
it maximise balanced accuracy, the bench's score (``--obj-mode acc`` for its default; ``--bins quantile``
for quantile bins). Results are appended to
``DIR-flowoct-....jsonl`` beside the folder (resumable: finished runs are not run again).

ODTlearn 1.1.0's ``Binarizer.transform`` encodes a row by the bins the *other* rows of the call fill: column
``a_k`` means "a's bin <= k", but it is built by a cumulative sum over the bins present in the call, and a
bin no row of the call falls in gets a column of zeros. Transforming [0, 1] with bins fitted on [0, 1, 2, 3]
gives a_2 = a_3 = 0 for both rows (should be 1). Test sets (and skewed training data under uniform bins)
miss bins, so trees were evaluated on features that meant something else: at breast seed 0 all 114 test rows
have wrong cells, 10 columns that are 1 on every training point are 0 on every test point, and FlowOCT's tree
scored 0.93 on the training part and 0.5 on the test part. By default (``--encoder fixed``) the script
therefore encodes with the Binarizer's own discretizer (scikit-learn's ``KBinsDiscretizer``, ordinal) and its
intended meaning, row by row (the Binarizer's very output on a call whose rows fill every bin: checked on
500 normal rows, both bin strategies); ``--encoder odtlearn`` runs the Binarizer as it is.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from olctc.bench.folder import read_bench_json, read_runs
from olctc.bench.report import markdown, summary_rows
from olctc.bench.tasks import bench_split
from olctc.datasets import load
from olctc.fit import balanced_accuracy

# Runs in the ODTlearn interpreter: argv = npz path, JSON options; prints one JSON line.
WORKER = r"""
import contextlib, io, json, sys, time, warnings
import numpy as np, pandas as pd
from sklearn.preprocessing import KBinsDiscretizer
from odtlearn.flow_oct import FlowOCT
from odtlearn.utils.binarize import Binarizer

f = np.load(sys.argv[1]); o = json.loads(sys.argv[2])
Xtr, Xte, ytr = f["Xtr"], f["Xte"], f["ytr"]
names = [f"x{j}" for j in range(Xtr.shape[1])]
binary = [j for j in range(Xtr.shape[1]) if set(np.unique(Xtr[:, j])) <= {0.0, 1.0}]
real = [names[j] for j in range(Xtr.shape[1]) if j not in set(binary)]
t0 = time.perf_counter()
parts_tr, parts_te = [], []
if real and o["encoder"] == "odtlearn":
    bz = Binarizer(real_cols=real, n_bins=4, bin_strategy=o["bins"])
    parts_tr.append(bz.fit_transform(pd.DataFrame(Xtr[:, [names.index(c) for c in real]], columns=real)))
    parts_te.append(bz.transform(pd.DataFrame(Xte[:, [names.index(c) for c in real]], columns=real)))
elif real:  # the Binarizer's own discretizer and meaning (column k: bin <= k), each row by itself
    cols = [names.index(c) for c in real]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kb = KBinsDiscretizer(n_bins=4, encode="ordinal", strategy=o["bins"]).fit(Xtr[:, cols])
        btr, bte = kb.transform(Xtr[:, cols]), kb.transform(Xte[:, cols])
    out_names = [f"{c}_{k}" for i, c in enumerate(real) for k in range(int(kb.n_bins_[i]))]
    def enc(bins):
        return np.concatenate([bins[:, [i]] <= np.arange(int(kb.n_bins_[i]))[None, :] for i in range(len(real))],
                              axis=1).astype(float)
    parts_tr.append(pd.DataFrame(enc(btr), columns=out_names))
    parts_te.append(pd.DataFrame(enc(bte), columns=out_names))
if binary:
    cols = [f"b{j}" for j in binary]
    parts_tr.append(pd.DataFrame(Xtr[:, binary].astype(int), columns=cols))
    parts_te.append(pd.DataFrame(Xte[:, binary].astype(int), columns=cols))
Btr = pd.concat([p.reset_index(drop=True) for p in parts_tr], axis=1)
Bte = pd.concat([p.reset_index(drop=True) for p in parts_te], axis=1)
m = FlowOCT(solver="cbc", depth=o["depth"], time_limit=o["time_limit"], _lambda=0.0, obj_mode=o["obj_mode"],
            num_threads=o["threads"], verbose=False)
m.fit(Btr, ytr)
t_fit = time.perf_counter() - t0
mdl = m._solver.model
text = io.StringIO()
with contextlib.redirect_stdout(text):
    m.print_tree()
print(json.dumps({"tree": " ".join(text.getvalue().split()), "pred_tr": m.predict(Btr).tolist(),
                  "pred_te": m.predict(Bte).tolist(), "time_total": t_fit,
                  "status": str(mdl.status).split(".")[-1], "gap": float(mdl.gap),
                  "objective": float(mdl.objective_value), "bound": float(mdl.objective_bound),
                  "binary_features": int(Btr.shape[1])}))
"""


def _run_one(py: str, ds_name: str, seed: int, opts: dict, obj_mode: str, bins: str, encoder: str) -> dict:
    ds = load(ds_name)
    train, test = bench_split(ds, seed, bool(opts.get("authors_split")))
    tr, te = ds.subset(train), ds.subset(test)
    ytr = (tr.y > 0).astype(int)
    o = {"depth": int(opts["depth"]), "time_limit": int(opts["time_limit"]), "obj_mode": obj_mode,
         "threads": int(opts["threads"]), "bins": bins, "encoder": encoder}
    with tempfile.TemporaryDirectory() as tmp:
        npz = Path(tmp) / "data.npz"
        np.savez(npz, Xtr=tr.X, Xte=te.X, ytr=ytr)
        t0 = time.perf_counter()
        cp = subprocess.run([py, "-c", WORKER, str(npz), json.dumps(o)], capture_output=True, text=True)
        wall = time.perf_counter() - t0
    rec = {"dataset": ds_name, "seed": seed, "model": _model_name(obj_mode, bins, encoder), "wall_process": wall,
           **o}
    if cp.returncode != 0:
        return {**rec, "status": "error", "error": cp.stderr.strip().splitlines()[-1:]}
    out = json.loads(cp.stdout.strip().splitlines()[-1])
    rec.update({k: out[k] for k in ("time_total", "gap", "objective", "bound", "binary_features", "tree")})
    # the bench's record fields: its status words, and time_solve the whole fit (as CART's and STreeD's)
    rec.update(status=out["status"].lower(), time_solve=out["time_total"],
               test_predicted_positive=int(sum(out["pred_te"])),
               train_balanced_accuracy=balanced_accuracy(tr.y, np.where(np.asarray(out["pred_tr"]) == 1, 1, -1)),
               test_balanced_accuracy=balanced_accuracy(te.y, np.where(np.asarray(out["pred_te"]) == 1, 1, -1)))
    return rec


def _model_name(obj_mode: str, bins: str, encoder: str) -> str:
    return f"FlowOCT-{obj_mode}-{bins}" + ("-odtlearn-binarizer" if encoder == "odtlearn" else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", help="a bench folder of the models experiment")
    ap.add_argument("--odtlearn-python", required=True, help="an interpreter with odtlearn[cbc] installed")
    ap.add_argument("--obj-mode", default="balance", choices=["balance", "acc"])
    ap.add_argument("--bins", default="uniform", choices=["uniform", "quantile"],
                    help="4 bins per real column: ODTlearn's default (uniform) or quantile")
    ap.add_argument("--encoder", default="fixed", choices=["fixed", "odtlearn"],
                    help="odtlearn: its Binarizer as is (see the module's docstring: it encodes a row by the "
                         "bins the other rows of its call fill)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--table", action="store_true", help="only print the tables of the runs recorded")
    a = ap.parse_args()
    folder = Path(a.folder)
    meta = read_bench_json(folder)
    records, _ = read_runs(folder)
    if not records:
        sys.exit(f"{folder}: no bench run recorded yet")
    opts = {**meta["options"], "depth": records[0]["depth"], "threads": records[0]["threads"]}
    model = _model_name(a.obj_mode, a.bins, a.encoder)
    out = folder.with_name(f"{folder.name}-{model.lower()}.jsonl")
    done = [json.loads(s) for s in out.read_text().splitlines() if s.strip()] if out.exists() else []
    have = {(r["dataset"], r["seed"], r["model"]) for r in done if r.get("status") != "error"}
    todo = [(d, int(s)) for d in opts["datasets"] for s in opts["seeds"]
            if (d, int(s), model) not in have and not a.table]
    if todo:
        print(f"{len(todo)} FlowOCT runs to do, {a.jobs} at a time", file=sys.stderr)
    with ThreadPoolExecutor(a.jobs) as pool:
        runs = pool.map(lambda t: _run_one(a.odtlearn_python, t[0], t[1], opts, a.obj_mode, a.bins, a.encoder), todo)
        for rec in runs:
            with out.open("a") as fh:
                fh.write(json.dumps(rec) + "\n")
            print(f"{rec['dataset']} seed {rec['seed']}: {rec['status']} "
                  f"{rec.get('test_balanced_accuracy', float('nan')):.4f}", file=sys.stderr)
    flow = [json.loads(s) for f in sorted(folder.parent.glob(f"{folder.name}-flowoct-*.jsonl"))
            for s in f.read_text().splitlines() if s.strip()]
    models = sorted({r["model"] for r in records}, key=lambda m: (m != "OLCT", m))
    models += sorted({r["model"] for r in flow}, key=lambda m: (m != model, m))
    everything = records + flow  # `olctc bench report`'s tables, with the FlowOCT columns beside the bench's
    print(markdown("models", summary_rows("models", everything), models, meta, everything))


if __name__ == "__main__":
    main()
