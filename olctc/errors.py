"""The one error type olctc raises for bad input, and helpers to phrase it."""
from __future__ import annotations


class OlctcError(ValueError):
    """Bad input or an impossible request, with a one-line message that says what to do.

    The CLI prints ``error: <message>`` and exits with code 2 for this type only.
    """


def param_error(name: str, expected: str, got: object) -> OlctcError:
    """Build the canonical parameter error: ``The 'name' parameter must be <expected>. Got <got> instead.``"""
    return OlctcError(f"The '{name}' parameter must be {expected}. Got {got!r} instead.")
