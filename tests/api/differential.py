"""Run a program with real PyTorch (real Python, in this process) and compare with /api/v1/run."""

from __future__ import annotations

import contextlib
import io
import re
import sys
import traceback
import types
import warnings
from typing import Any

from tests.tolerances import PROGRAM_ROUNDINGS, printed_numbers_match

_NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:e[+-]?\d+)?|nan|-?inf")
#: object addresses (``<AddBackward0 object at 0x7f...>``) differ from run to run
_ADDRESS = re.compile(r" object at 0x[0-9a-fA-F]+>")


def run_with_torch(source: str) -> dict[str, Any]:
    """stdout and error ({type, message, line}) of source run by real Python with real torch."""
    buffer = io.StringIO()
    error = None
    # A real module, as the playground gives programs (dataclasses look their module up)
    module = types.ModuleType("__program__")
    namespace: dict[str, Any] = module.__dict__
    sys.modules["__program__"] = module
    try:
        code = compile(source, "<program>", "exec")
        # PyTorch's warnings go to stderr, not to what the learner compares (and pytest's
        # filterwarnings = error must not turn them into the program's error)
        with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(code, namespace)
    except Exception as exc:
        line = None
        for frame in traceback.extract_tb(sys.exc_info()[2]):
            if frame.filename == "<program>":
                line = frame.lineno
        error = {"type": type(exc).__name__, "message": str(exc).split("\n")[0], "line": line}
    finally:
        del sys.modules["__program__"]
    return {"stdout": buffer.getvalue(), "error": error}


def same_output(ours: str, theirs: str) -> bool:
    """Equal text, and numbers equal within one unit in their last printed place plus float32
    rounding of the program's computation (tests/tolerances.py: printed_numbers_match).

    Object addresses are not compared: ``<MulBackward0 object at 0x...>`` is the same text."""
    ours, theirs = _ADDRESS.sub(" object at 0x?>", ours), _ADDRESS.sub(" object at 0x?>", theirs)
    ours_text, theirs_text = _NUMBER.split(ours), _NUMBER.split(theirs)
    if ours_text != theirs_text:
        return False
    return all(
        a == b or printed_numbers_match(b, a, PROGRAM_ROUNDINGS)
        for a, b in zip(_NUMBER.findall(ours), _NUMBER.findall(theirs), strict=True)
    )
