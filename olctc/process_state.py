"""The process's own state, which the console program and the library share: an interrupt received and not
yet consumed, sections an interrupt must not cut, whether this is the console program, and solvers left
running in their threads."""
from __future__ import annotations

import contextlib
from typing import Iterator


#: An interrupt the console program received and nothing has consumed yet (see ``note_interrupt``).
_interrupt_pending = False


def note_interrupt(pending: bool = True) -> None:
    """Record that the console program was interrupted (``pending=False``: the command is over).

    The signal handler raises KeyboardInterrupt, but Python drops an exception raised while a finaliser
    (``__del__``, a weakref callback) runs, and a native call may swallow it: the command would then go
    on and commit its files as if never interrupted. ``atomic_open`` checks this record before every
    rename into place, so the interrupt stops the command at its next commit at the latest.
    """
    global _interrupt_pending
    _interrupt_pending = pending


def interrupt_handled() -> None:
    """The interrupt became a result (a solver stopped and reported "interrupted"): the caller decides
    what to do with it, and commits its files if it goes on."""
    note_interrupt(False)


def check_interrupt() -> None:
    """Raise KeyboardInterrupt if an interrupt was received and not consumed."""
    if _interrupt_pending:
        raise KeyboardInterrupt


#: How many ``interrupts_deferred`` sections are running (the console program's signal handler reads it).
_deferring = 0


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """A section an interrupt must not cut: moving a set of whole files into place. Cut between two renames, a
    recompile's folder lost the earlier set and held part of the new one (QA 2026-12-05: Ctrl-C there left no
    file of 17). In the console program an interrupt received meanwhile is only recorded (``note_interrupt``),
    and the outermost section's end raises it. olctc inside another program keeps that program's handlers, and
    Python's own raises at once, as before."""
    import threading

    if threading.current_thread() is not threading.main_thread():  # signals reach the main thread only: a
        yield                                                       # section here would defer the main's
        return
    global _deferring
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
    if not _deferring:
        check_interrupt()


def interrupts_are_deferred() -> bool:
    """Whether an ``interrupts_deferred`` section is running."""
    return _deferring > 0


#: Whether this process is the console program, which leaves by ``os._exit`` after an interrupt.
_console = False


def note_console() -> None:
    """Record that the console program runs this process (see ``is_console``)."""
    global _console
    _console = True


def is_console() -> bool:
    """Whether an interrupt ends this process at once: a native call that cannot be stopped may then be
    left running in its thread, since the process exit takes it along."""
    return _console


#: Whether a solver was left running in its thread past its time limit (``solver_left``).
_solver_left = False


def note_solver_left() -> None:
    """Record that a solver thread was left running: the console program must then leave by ``os._exit``
    (the interpreter's and the solver library's finalisation would run under the busy thread)."""
    global _solver_left
    _solver_left = True


def solver_left() -> bool:
    """Whether ``note_solver_left`` was called in this process."""
    return _solver_left
