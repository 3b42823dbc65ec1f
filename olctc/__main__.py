"""``python -m olctc``: the same command line as the ``olctc`` console script (``olctc.cli:main``)."""
from __future__ import annotations

from olctc.cli import main

if __name__ == "__main__":
    main()
