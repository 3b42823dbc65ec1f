"""QA: the same inputs give byte-identical files, whatever the environment.

Every test runs olctc for real (the CLI in a subprocess with a modified environment, or the API) and
compares real bytes. Environment variations: PYTHONHASHSEED, LC_ALL/LANG, TZ, OMP/OpenBLAS thread
counts, the working directory, relative vs absolute paths, the output folder's name, numpy's SIMD
dispatch (NPY_DISABLE_CPU_FEATURES) and OpenBLAS's kernel (OPENBLAS_CORETYPE).

Known, deliberate differences (see the QA report): the manifest records ``data.source`` (where to read
the data again) and ``data.name`` (from the file name); ``olctc fit`` records its timings
(``meta.fit.time_*``) in the tree file; start files, ``warm_start.objective`` and refined (decoded)
weights follow OpenBLAS's CPU kernel in their last bits (the MPS does not).
"""
from __future__ import annotations

import gzip
import hashlib
import json
import os
import pickle
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

OLCTC = [sys.executable, "-c", "import sys; from olctc.cli import main; sys.argv[0] = 'olctc'; main()"]

#: numpy >= 2.4 dispatches to the groups X86_V3, X86_V4, AVX512_ICL, AVX512_SPR above its X86_V2 baseline;
#: names such as AVX2 or AVX512F are refused there with an ImportWarning (hidden by default), and the
#: variable then disables nothing. Older numpy takes the individual features.
SIMD_OFF = {"X86_V3 X86_V4 AVX512_ICL AVX512_SPR", "AVX512_SPR AVX512_ICL AVX512_SKX AVX512CD AVX512F AVX2 FMA3"}

BASE_ENV = {"PYTHONHASHSEED": "0", "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8", "TZ": "UTC",
            "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
VARIED_ENV = {"PYTHONHASHSEED": "1", "LC_ALL": "C", "LANG": "C", "TZ": "Pacific/Kiritimati",
              "OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2"}


def env_with(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NPY_DISABLE_CPU_FEATURES", "OPENBLAS_CORETYPE")}
    env.update(extra)
    return env


def olctc(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    r = subprocess.run([*OLCTC, *[str(a) for a in args]], env=env_with(env), cwd=cwd, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, f"olctc {' '.join(map(str, args))} exited {r.returncode}:\n{r.stderr[-3000:]}"
    return r


#: ``olctc`` commands one after another in one fresh interpreter (stdin: a JSON list of [args, cwd]); each
#: must exit 0. An interpreter's start (imports: scikit-learn alone is about 1 s) costs more than a compile.
OLCTC_SEQ = ("import json, os, sys\n"
             "from olctc.cli import main\n"
             "for args, cwd in json.load(sys.stdin):\n"
             "    os.chdir(cwd)\n"
             "    try:\n"
             "        main(args)\n"
             "    except SystemExit as e:\n"
             "        if e.code != 0:\n"
             "            sys.exit(f'olctc {\" \".join(args)} exited {e.code}')\n")


def olctc_seq(commands: list[tuple[list, Path]], env: dict[str, str]) -> None:
    """Each (args, cwd) of ``commands`` run by olctc in turn, in one fresh interpreter with ``env``."""
    todo = json.dumps([[[str(a) for a in args], str(cwd)] for args, cwd in commands])
    r = subprocess.run([sys.executable, "-c", OLCTC_SEQ], input=todo, env=env_with(env), capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def differing(a: dict[str, str], b: dict[str, str]) -> list[str]:
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def compile_to(folder: Path, args: list[str], env: dict[str, str], *, cwd: Path | None = None,
               name: str = "m.mps") -> dict[str, str]:
    """Compile into a fresh ``folder``; with ``cwd``, the output path is given relative to it."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    out = folder / name
    if cwd is not None:
        out = Path(os.path.relpath(out, cwd))
    olctc(["compile", *args, "-o", out], env, cwd or folder)
    return digests(folder)


PRESETS = {
    "olct": ["--dataset", "haberman", "--depth", "2", "--score-variables", "--tangents", "V2"],
    "olct-univariate": ["--dataset", "haberman", "--depth", "1", "--preset", "olct-univariate"],
    "margot": ["--dataset", "haberman", "--depth", "1", "--preset", "margot"],
    "margot-sfs": ["--dataset", "haberman", "--depth", "1", "--preset", "margot-sfs", "--score-variables"],
    "oct-h": ["--dataset", "heart", "--depth", "1", "--preset", "oct-h", "--class-weight", "balanced"],
}


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("qa_determinism")


@pytest.fixture(scope="module")
def reference(work) -> dict[str, tuple[Path, dict[str, str]]]:
    """Each preset compiled once in the reference environment (absolute path), all in one interpreter."""
    for p in PRESETS:
        (work / "ref" / p).mkdir(parents=True)
    olctc_seq([(["compile", *args, "-o", work / "ref" / p / "m.mps"], work / "ref" / p) for p, args in PRESETS.items()],
              BASE_ENV)
    return {p: (work / "ref" / p, digests(work / "ref" / p)) for p in PRESETS}


# ------------------------------------------------------------------------------------------ compile

@pytest.mark.parametrize("preset", list(PRESETS))
def test_compile_identical_across_environment(work, reference, preset):
    """Another hash seed, locale, time zone, thread count, working directory, a relative output path and
    an output folder of another name (with a space): every file compile writes is byte-identical."""
    ref_dir, ref = reference[preset]
    assert {"m.mps", "m.olctc.json", "m.solvers.txt", "m.scip.set", "m.start.scip.sol"} <= set(ref)
    elsewhere = work / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    got = compile_to(work / "varied" / f"other folder {preset}", PRESETS[preset], VARIED_ENV, cwd=elsewhere)
    assert differing(ref, got) == []


def test_compile_lp_identical_across_environment(work):
    args = ["--dataset", "haberman", "--depth", "1", "--preset", "margot", "--score-variables"]
    a = compile_to(work / "lp_a", args, BASE_ENV, name="m.lp")
    b = compile_to(work / "lp b", args, {**VARIED_ENV, "PYTHONHASHSEED": "random"}, cwd=work, name="m.lp")
    assert "m.lp" in a and differing(a, b) == []


def _simd_changes_numpy() -> str | None:
    """A NPY_DISABLE_CPU_FEATURES value that really changes numpy's arithmetic here (np.exp's last bits
    differ between its AVX-512 and baseline paths), or None."""
    probe = ("import numpy as np, hashlib; x = np.linspace(-30, 30, 100003); "
             "print(hashlib.sha256(np.exp(x).tobytes()).hexdigest())")
    base = subprocess.run([sys.executable, "-c", probe], env=env_with({}), capture_output=True, text=True).stdout
    for value in sorted(SIMD_OFF):
        r = subprocess.run([sys.executable, "-W", "error::ImportWarning", "-c", probe],
                           env=env_with({"NPY_DISABLE_CPU_FEATURES": value}), capture_output=True, text=True)
        if r.returncode == 0 and r.stdout and r.stdout != base:
            return value
    return None


def test_compile_identical_with_numpy_simd_disabled(work, reference):
    """The MPS number writer uses np.log10 (whose last bits differ between numpy's SIMD paths) and
    corrects its exponent: the bytes must not depend on the path numpy takes."""
    value = _simd_changes_numpy()
    if value is None:
        pytest.skip("no NPY_DISABLE_CPU_FEATURES value changes numpy's arithmetic on this CPU")
    _, ref = reference["olct"]
    got = compile_to(work / "simd", PRESETS["olct"], {**BASE_ENV, "NPY_DISABLE_CPU_FEATURES": value})
    assert differing(ref, got) == []


def test_number_writer_identical_with_numpy_simd_disabled():
    """The vectorised number formatter gives repr's bytes on both SIMD paths, for the same doubles."""
    value = _simd_changes_numpy()
    if value is None:
        pytest.skip("no NPY_DISABLE_CPU_FEATURES value changes numpy's arithmetic on this CPU")
    code = (
        "import numpy as np, hashlib, sys\n"
        "from olctc.emit._format import number_strings, fmt\n"
        "rng = np.random.default_rng(5)\n"
        "b = rng.integers(0, 2**63, 300000, dtype=np.uint64) & np.uint64(0x800FFFFFFFFFFFFF)\n"
        "e = rng.integers(1003, 1077, 300000).astype(np.uint64) << np.uint64(52)\n"
        "x = (b | e).view(np.float64)\n"  # exponents 2**-20 .. 2**53: every formatting branch
        # where log10's exponent can be off by one; not 10.0 ** np.arange(...): np.power's last bits
        # differ between the SIMD paths themselves
        "p = np.array([float(f'1e{k}') for k in range(-6, 17)])\n"
        "x = np.concatenate([x] + [p * (1 + k * 2.0 ** -52) for k in range(-4, 5)])\n"
        "s = number_strings(x)\n"
        "bad = sum(g != fmt(v) for g, v in zip(s, x.tolist()))\n"
        "print(bad, hashlib.sha256('\\n'.join(s).encode()).hexdigest())\n")
    out = [subprocess.run([sys.executable, "-c", code], env=env_with(e), capture_output=True, text=True,
                          check=True).stdout.split()
           for e in ({}, {"NPY_DISABLE_CPU_FEATURES": value})]
    assert out[0][0] == "0" and out[1][0] == "0"
    assert out[0][1] == out[1][1]


def test_compile_model_identical_across_blas_kernels(work, reference):
    """OPENBLAS_CORETYPE picks another CPU kernel (as another machine would): the model file and the
    parameter files stay identical. (The warm start and so the start files and the manifest's
    warm_start do change in their last bits: documented in the QA report, not asserted here.)"""
    _, ref = reference["olct"]
    got = compile_to(work / "blas", PRESETS["olct"], {**BASE_ENV, "OPENBLAS_CORETYPE": "Prescott"})
    assert {k: got[k] for k in ref if not k.startswith("m.start") and k != "m.olctc.json"} == \
        {k: ref[k] for k in ref if not k.startswith("m.start") and k != "m.olctc.json"}


# ------------------------------------------------------------------------------------------ data sources

def _manifest(folder: Path) -> dict:
    return json.loads((folder / "m.olctc.json").read_text())


def test_dataset_csv_and_gzip_give_the_same_model(work):
    """--dataset NAME, the same data as a CSV (relative path, another cwd) and as a gzip'd copy: the model,
    parameter and start files are identical; the manifests differ only in data.name and data.source
    (and so in the checksum, which covers data.name)."""
    import olctc.datasets as ds

    src = Path(ds.__file__).parent / "tic-tac-toe.csv.gz"
    data = work / "data"
    data.mkdir(exist_ok=True)
    (data / "ttt.csv").write_bytes(gzip.decompress(src.read_bytes()))
    (data / "ttt.csv.gz").write_bytes(gzip.compress((data / "ttt.csv").read_bytes(), mtime=0))
    common = ["--depth", "1", "--preset", "olct"]
    runs = {"dataset": compile_to(work / "src_ds", ["--dataset", "tic-tac-toe", *common], BASE_ENV),
            "csv": compile_to(work / "src_csv", ["data/ttt.csv", "--target", "y", *common], VARIED_ENV, cwd=work),
            "gz": compile_to(work / "src_gz", [data / "ttt.csv.gz", "--target", "y", *common], BASE_ENV)}
    for k in ("csv", "gz"):
        assert differing(runs["dataset"], runs[k]) == ["m.olctc.json"], k
    mans = {k: _manifest(work / f"src_{'ds' if k == 'dataset' else k}") for k in runs}
    assert mans["csv"]["data"]["source"] == str((data / "ttt.csv").resolve())  # absolute, whatever the cwd
    for m in mans.values():
        m.pop("checksum")
        m["data"].pop("name")
        m["data"].pop("source")
    assert mans["dataset"] == mans["csv"] == mans["gz"]


# ------------------------------------------------------------------------------------------ decode, export

@pytest.fixture(scope="module")
def decoded(work) -> Path:
    """A depth-1 model solved once (HiGHS, one thread) and decoded: the tree file."""
    d = work / "dec"
    d.mkdir()
    olctc_seq([(["compile", "--dataset", "haberman", "--depth", "1", "-o", d / "m.mps"], d),
               (["solve", "m.mps", "--solver", "highs", "--time-limit", "10", "--threads", "1", "-o", "m.highs.sol"],
                d),
               (["decode", "m.olctc.json", "m.highs.sol", "-o", "t1.json"], d)], BASE_ENV)
    return d / "t1.json"


def test_decode_twice_identical(work, decoded):
    """The same solution decoded again, in another environment, from a renamed gzip'd copy: same bytes."""
    d = decoded.parent
    moved = work / "dec elsewhere"
    moved.mkdir(exist_ok=True)
    (moved / "renamed.sol.gz").write_bytes(gzip.compress((d / "m.highs.sol").read_bytes(), mtime=0))
    olctc(["decode", d / "m.olctc.json", "renamed.sol.gz", "-o", "t2.json"], VARIED_ENV, moved)
    assert (moved / "t2.json").read_bytes() == decoded.read_bytes()


FORMATS = {"json": "json", "python": "py", "onnx": "onnx", "text": "txt", "dot": "dot"}


def test_export_every_format_identical_across_runs(work, decoded):
    """Each format exported by the CLI (another environment, a renamed copy of the tree file, another
    working directory; the five exports in one interpreter) is byte-identical to the API's render in this
    process, twice; the JSON export is the tree file itself."""
    from olctc.export import render
    from olctc.export import json as tree_json

    tree = tree_json.load(decoded)
    copy = work / "exp b" / "renamed tree.json"
    copy.parent.mkdir(exist_ok=True)
    shutil.copyfile(decoded, copy)
    olctc_seq([(["export", copy.name, "--format", fmt, "-o", f"out.{suffix}"], copy.parent)
               for fmt, suffix in FORMATS.items()], VARIED_ENV)
    for fmt, suffix in FORMATS.items():
        b = copy.parent / f"out.{suffix}"
        assert b.read_bytes() == render(tree, fmt) == render(tree_json.load(decoded), fmt), fmt
    assert (copy.parent / "out.json").read_bytes() == decoded.read_bytes()


def test_onnx_graph_identical(work, decoded):
    """Beyond the bytes: the two ONNX graphs have the same nodes, initialisers and metadata."""
    onnx = pytest.importorskip("onnx")
    from olctc.export import json as tree_json
    from olctc.export.onnx import to_onnx

    tree = tree_json.load(decoded)
    out = work / "graph.onnx"
    olctc(["export", decoded, "-o", out], VARIED_ENV, work)
    m1, m2 = to_onnx(tree), onnx.load_model_from_string(out.read_bytes())
    assert [(n.op_type, list(n.input), list(n.output)) for n in m1.graph.node] == \
        [(n.op_type, list(n.input), list(n.output)) for n in m2.graph.node]
    assert [i.SerializeToString() for i in m1.graph.initializer] == [i.SerializeToString() for i in m2.graph.initializer]
    assert [(p.key, p.value) for p in m1.metadata_props] == [(p.key, p.value) for p in m2.metadata_props]


def test_tree_json_and_pickle_round_trips(decoded):
    """save -> load -> save gives the same bytes; a pickled Tree saves to the same bytes too."""
    from olctc.export import json as tree_json

    text = decoded.read_text(encoding="utf-8")
    t = tree_json.loads(text)
    assert tree_json.dump(t) == text
    assert tree_json.dump(tree_json.loads(tree_json.dump(t))) == text
    assert tree_json.dump(pickle.loads(pickle.dumps(t))) == text


# ------------------------------------------------------------------------------------------ fits

TIMINGS = {"time_build", "time_warm_start", "time_solve", "time_total"}


def _without_timings(doc: dict) -> dict:
    doc = json.loads(json.dumps(doc))
    for k in TIMINGS:
        doc.get("meta", {}).get("fit", {}).pop(k, None)
    return doc


def test_fit_twice_same_tree(work):
    """`olctc fit` twice (fixed seed, one thread, an instance HiGHS proves optimal in well under a second),
    the second in another environment: the tree files differ in the recorded timings only."""
    out = []
    for k, env in enumerate((BASE_ENV, VARIED_ENV)):
        path = work / f"fit{k}.json"
        olctc(["fit", "--dataset", "haberman", "--depth", "1", "--seed", "3", "--threads", "1",
               "--time-limit", "10", "-o", path], env, work)
        out.append(json.loads(path.read_text()))
    assert [d["meta"]["fit"]["status"] for d in out] == ["optimal", "optimal"]
    diff = {k for k in out[0]["meta"]["fit"] if out[0]["meta"]["fit"][k] != out[1]["meta"]["fit"].get(k)}
    assert diff <= TIMINGS
    assert _without_timings(out[0]) == _without_timings(out[1])
    # and every export but JSON (which carries meta) is byte-identical
    from olctc.export import json as tree_json, render
    trees = [tree_json.loads(json.dumps(d)) for d in out]
    for fmt in ("python", "onnx", "text", "dot"):
        assert render(trees[0], fmt) == render(trees[1], fmt), fmt


def test_estimator_fit_twice(work):
    """OLCTClassifier fitted twice (no time limit, one thread): the same tree; a pickle round trip keeps it."""
    from olctc import load_dataset
    from olctc.estimator import OLCTClassifier
    from olctc.export import render

    X, y, _ = load_dataset("haberman")
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2):
            est = OLCTClassifier(depth=1, time_limit=None, threads=1).fit(X, y)
            t = est.export_tree()
            back = pickle.loads(pickle.dumps(est))
            assert render(back.export_tree(), "json") == render(t, "json")
            assert (back.predict_proba(X) == est.predict_proba(X)).all()
            out.append({f: render(t, f) for f in ("json", "python", "onnx", "text", "dot")})
    for fmt in ("python", "onnx", "text", "dot"):
        assert out[0][fmt] == out[1][fmt], fmt
    assert _without_timings(json.loads(out[0]["json"])) == _without_timings(json.loads(out[1]["json"]))


def test_grid_identical_across_environment(work):
    """`olctc grid` written twice, in another environment and from another working directory (the
    folder keeps its name, which the Slurm job name is made of): every file is byte-identical."""
    args = ["grid", "--dataset", "haberman", "--depth", "1", "--C-values", "1", "--folds", "2",
            "--time-limit", "5"]
    for k, env in ((0, BASE_ENV), (1, VARIED_ENV)):
        parent = work / f"grid_{k}"
        parent.mkdir()
        olctc([*args, "-o", parent / "grid" if k == 0 else "grid"], env, work if k == 0 else parent)
    files = [{str(p.relative_to(work / f"grid_{k}")): p.read_bytes() for p in (work / f"grid_{k}").rglob("*")
              if p.is_file()} for k in (0, 1)]
    assert len(files[0]) > 10 and any(name.endswith(".mps") for name in files[0])
    assert sorted(files[0]) == sorted(files[1])
    assert [name for name in files[0] if files[0][name] != files[1][name]] == []
