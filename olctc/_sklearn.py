"""scikit-learn's modules, imported one thread at a time.

Python imports each module under a lock of its own, and scikit-learn's modules import each other in a circle
(``sklearn`` imports ``sklearn.base``, which imports ``sklearn.exceptions``, which needs ``sklearn``): threads
importing two of them for the first time at once met a module half imported, and one failed with "cannot import
name 'clone' from partially initialized module 'sklearn.base'" or a _DeadlockError (measured: 3 of 8 fresh
processes whose four threads started OLCT and MARGOT warm starts together). The imports of scikit-learn on
olctc's paths that threads run (a warm start beside the writing, fits on a caller's threads, the estimators'
module on its first use) come through here.
"""
from __future__ import annotations

import importlib
import threading
from types import ModuleType

#: Held while olctc imports a scikit-learn module (``with IMPORTING:`` around module-level imports).
IMPORTING = threading.RLock()


def sklearn_module(name: str) -> ModuleType:
    """``importlib.import_module(name)`` while no other olctc thread imports one."""
    with IMPORTING:
        return importlib.import_module(name)
