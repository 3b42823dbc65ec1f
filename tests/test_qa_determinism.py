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

import functools
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

# One pytest-xdist worker for the module: the runs of the reference and the varied environment (see `reference`)
# would be made by each worker that ran one of the tests using them.
pytestmark = pytest.mark.xdist_group("qa_determinism")

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


#: What a compile's warm start imports in its forked child (olctc.pipeline), but sklearn.linear_model: imported
#: first, a forked child has them, where each compile's child imported them anew (about 1.5 s). Not the modules
#: that load sklearn.linear_model (sklearn.svm ...): a compile in a process holding it computes its warm start on a
#: thread instead, not as a fresh `olctc compile` does. For the same reason a sequence's compiles come before its
#: other commands (decode and fit import it).
WARM_IMPORTS = ("import sys\n"
                "import scipy.optimize, sklearn.base, sklearn.exceptions, sklearn.utils.validation\n"
                "if 'sklearn.linear_model' in sys.modules:\n"
                "    sys.exit('the warm imports loaded sklearn.linear_model: compile would not fork its warm start')\n")


def olctc_seq(commands: list[tuple[list, Path]], env: dict[str, str], *, warm_imports: bool = False) -> None:
    """Each (args, cwd) of ``commands`` run by olctc in turn, in one fresh interpreter with ``env``; with
    ``warm_imports``, WARM_IMPORTS first (for a sequence of compiles)."""
    todo = json.dumps([[[str(a) for a in args], str(cwd)] for args, cwd in commands])
    script = (WARM_IMPORTS if warm_imports else "") + OLCTC_SEQ
    r = subprocess.run([sys.executable, "-c", script], input=todo, env=env_with(env), capture_output=True,
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


#: The arguments of the runs of the tests below made in the reference and the varied environment (the interpreters
#: of `reference` and `varied`)
LP_ARGS = ["--dataset", "haberman", "--depth", "1", "--preset", "margot", "--score-variables"]
TTT_ARGS = ["--depth", "1", "--preset", "olct"]  # tic-tac-toe, by name or from a file
FIT_ARGS = ["fit", "--dataset", "haberman", "--depth", "1", "--seed", "3", "--threads", "1", "--time-limit", "10"]
GRID_ARGS = ["grid", "--dataset", "haberman", "--depth", "1", "--C-values", "1", "--folds", "2", "--time-limit", "5"]
FORMATS = {"json": "json", "python": "py", "onnx": "onnx", "text": "txt", "dot": "dot"}


@pytest.fixture(scope="module")
def ttt_data(work) -> Path:
    """work/data holding tic-tac-toe as ttt.csv and as a gzip'd copy ttt.csv.gz."""
    import olctc.datasets as ds

    src = Path(ds.__file__).parent / "tic-tac-toe.csv.gz"
    data = work / "data"
    data.mkdir()
    (data / "ttt.csv").write_bytes(gzip.decompress(src.read_bytes()))
    (data / "ttt.csv.gz").write_bytes(gzip.compress((data / "ttt.csv").read_bytes(), mtime=0))
    return data


@pytest.fixture(scope="module")
def reference(work) -> dict[str, tuple[Path, dict[str, str]]]:
    """The runs of the reference environment that the tests compare, all in one interpreter (the environment is
    the process's; the runs compared with these are other processes): each preset compiled (absolute path), the
    LP model (work/lp_a), tic-tac-toe by name (work/src_ds), a depth-1 model solved (HiGHS, one thread) and
    decoded (work/dec/t1.json), a fit (work/fit0.json) and a grid (work/grid_0/grid), made from work. Each
    preset's folder and digests."""
    for p in PRESETS:
        (work / "ref" / p).mkdir(parents=True)
    for folder in ("lp_a", "src_ds", "dec", "grid_0"):
        (work / folder).mkdir()
    d = work / "dec"
    olctc_seq([*[(["compile", *args, "-o", work / "ref" / p / "m.mps"], work / "ref" / p)
                 for p, args in PRESETS.items()],
               (["compile", *LP_ARGS, "-o", work / "lp_a" / "m.lp"], work / "lp_a"),
               (["compile", "--dataset", "tic-tac-toe", *TTT_ARGS, "-o", work / "src_ds" / "m.mps"], work / "src_ds"),
               (["compile", "--dataset", "haberman", "--depth", "1", "-o", d / "m.mps"], d),
               (["solve", "m.mps", "--solver", "highs", "--time-limit", "10", "--threads", "1", "-o", "m.highs.sol"],
                d),
               (["decode", "m.olctc.json", "m.highs.sol", "-o", "t1.json"], d),
               ([*FIT_ARGS, "-o", work / "fit0.json"], work),
               ([*GRID_ARGS, "-o", work / "grid_0" / "grid"], work)], BASE_ENV, warm_imports=True)
    return {p: (work / "ref" / p, digests(work / "ref" / p)) for p in PRESETS}


@pytest.fixture(scope="module")
def decoded(work, reference) -> Path:
    """A depth-1 model solved once (HiGHS, one thread) and decoded (by `reference`): the tree file."""
    return work / "dec" / "t1.json"


@pytest.fixture(scope="module")
def varied(work, reference, decoded, ttt_data) -> dict[str, dict[str, str]]:
    """The runs of the varied environment, all in one other interpreter: each preset compiled from another
    working folder to a relative path in an output folder of another name (in the reverse order of the
    reference's: no compile follows the same ones there), tic-tac-toe from its CSV (relative path, from work, into
    work/src_csv), the decoded solution decoded again from a renamed gzip'd copy (in work/dec elsewhere), the tree
    file exported in each format from a renamed copy in another working folder (into work/exp b) and as
    work/graph.onnx (the format from the name), the fit (work/fit1.json) and the grid (from work/grid_1, into
    grid). Each preset's digests."""
    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    out = {p: work / "varied" / f"other folder {p}" for p in PRESETS}
    for folder in out.values():
        folder.mkdir(parents=True)
    moved = work / "dec elsewhere"
    moved.mkdir()
    (moved / "renamed.sol.gz").write_bytes(gzip.compress((decoded.parent / "m.highs.sol").read_bytes(), mtime=0))
    copy = work / "exp b" / "renamed tree.json"
    copy.parent.mkdir()
    shutil.copyfile(decoded, copy)
    (work / "src_csv").mkdir()
    (work / "grid_1").mkdir()
    olctc_seq([*[(["compile", *PRESETS[p], "-o", os.path.relpath(out[p] / "m.mps", elsewhere)], elsewhere)
                 for p in reversed(PRESETS)],
               (["compile", "data/ttt.csv", "--target", "y", *TTT_ARGS, "-o", "src_csv/m.mps"], work),
               (["decode", decoded.parent / "m.olctc.json", "renamed.sol.gz", "-o", "t2.json"], moved),
               *[(["export", copy.name, "--format", fmt, "-o", f"out.{suffix}"], copy.parent)
                 for fmt, suffix in FORMATS.items()],
               (["export", decoded, "-o", work / "graph.onnx"], work),
               ([*FIT_ARGS, "-o", work / "fit1.json"], work),
               ([*GRID_ARGS, "-o", "grid"], work / "grid_1")], VARIED_ENV, warm_imports=True)
    return {p: digests(folder) for p, folder in out.items()}


# ------------------------------------------------------------------------------------------ compile

@pytest.mark.parametrize("preset", list(PRESETS))
def test_compile_identical_across_environment(reference, varied, preset):
    """Another hash seed, locale, time zone, thread count, working directory, a relative output path and
    an output folder of another name (with a space): every file compile writes is byte-identical."""
    ref_dir, ref = reference[preset]
    assert {"m.mps", "m.olctc.json", "m.solvers.txt", "m.scip.set", "m.start.scip.sol"} <= set(ref)
    assert differing(ref, varied[preset]) == []


def test_compile_lp_identical_across_environment(work, reference):
    a = digests(work / "lp_a")  # compiled by `reference`
    b = compile_to(work / "lp b", LP_ARGS, {**VARIED_ENV, "PYTHONHASHSEED": "random"}, cwd=work, name="m.lp")
    assert "m.lp" in a and differing(a, b) == []


@functools.cache  # two tests ask: three interpreters each
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


def test_dataset_csv_and_gzip_give_the_same_model(work, ttt_data, reference, varied):
    """--dataset NAME, the same data as a CSV (relative path, another cwd) and as a gzip'd copy: the model,
    parameter and start files are identical; the manifests differ only in data.name and data.source
    (and so in the checksum, which covers data.name)."""
    data = ttt_data
    runs = {"dataset": digests(work / "src_ds"),  # compiled by `reference`
            "csv": digests(work / "src_csv"),  # by `varied`
            "gz": compile_to(work / "src_gz", [data / "ttt.csv.gz", "--target", "y", *TTT_ARGS], BASE_ENV)}
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

def test_decode_twice_identical(work, decoded, varied):
    """The same solution decoded again, in another environment, from a renamed gzip'd copy: same bytes."""
    moved = work / "dec elsewhere"  # decoded by `varied`
    assert (moved / "t2.json").read_bytes() == decoded.read_bytes()


@pytest.fixture(scope="module")
def exported(work, varied) -> Path:
    """The folder of the tree file's renamed copy, exported in each format by `varied`."""
    return work / "exp b"


def test_export_every_format_identical_across_runs(decoded, exported):
    """Each format exported by the CLI (another environment, a renamed copy of the tree file, another
    working directory; the five exports in one interpreter) is byte-identical to the API's render in this
    process, twice; the JSON export is the tree file itself."""
    from olctc.export import render
    from olctc.export import json as tree_json

    tree = tree_json.load(decoded)
    for fmt, suffix in FORMATS.items():
        b = exported / f"out.{suffix}"
        assert b.read_bytes() == render(tree, fmt) == render(tree_json.load(decoded), fmt), fmt
    assert (exported / "out.json").read_bytes() == decoded.read_bytes()


def test_onnx_graph_identical(work, decoded, exported):
    """Beyond the bytes: the two ONNX graphs have the same nodes, initialisers and metadata."""
    onnx = pytest.importorskip("onnx")
    from olctc.export import json as tree_json
    from olctc.export.onnx import to_onnx

    tree = tree_json.load(decoded)
    out = work / "graph.onnx"  # exported by the CLI in another environment
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


def test_fit_twice_same_tree(work, reference, varied):
    """`olctc fit` twice (fixed seed, one thread, an instance HiGHS proves optimal in well under a second),
    the second in another environment: the tree files differ in the recorded timings only."""
    out = [json.loads((work / f"fit{k}.json").read_text()) for k in (0, 1)]  # by `reference`, by `varied`
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


def test_grid_identical_across_environment(work, reference, varied):
    """`olctc grid` written twice, in another environment and from another working directory (the
    folder keeps its name, which the Slurm job name is made of): every file is byte-identical."""
    # grid_0/grid written by `reference` from work, grid_1/grid by `varied` from grid_1
    files = [{str(p.relative_to(work / f"grid_{k}")): p.read_bytes() for p in (work / f"grid_{k}").rglob("*")
              if p.is_file()} for k in (0, 1)]
    assert len(files[0]) > 10 and any(name.endswith(".mps") for name in files[0])
    assert sorted(files[0]) == sorted(files[1])
    assert [name for name in files[0] if files[0][name] != files[1][name]] == []
