"""``python -m olctc`` and the ``olctc`` console script: the command line of ``olctc.cli.main``.

The console script imports this module, not ``olctc.cli``: the command line's imports (numpy, click: about
0.2 s) run inside ``main``, where a Ctrl-C gets the one line "interrupted" and the exit 130 it gets once the
command runs. Before, it got a traceback from the middle of numpy, or an exit 0 when Python dropped the
KeyboardInterrupt raised inside one of the import system's callbacks.
"""
from __future__ import annotations

import sys


def main() -> None:
    """Run the ``olctc`` command line on ``sys.argv``."""
    import signal

    seen: list[int] = []
    ours = signal.getsignal(signal.SIGINT) is signal.default_int_handler  # not when SIGINT is ignored
    if ours:
        # Noted, not raised: raising would leave a native module (numpy) half-imported. The imports end
        # within a second, and nothing has been written yet.
        signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        from olctc.cli import main as run
    finally:
        if ours:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    if seen:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    run()


if __name__ == "__main__":
    main()
