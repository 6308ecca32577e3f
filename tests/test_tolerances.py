"""The comparison helpers of tests/tolerances.py: what they accept and what they refuse."""

from __future__ import annotations

import numpy as np
import pytest

from tests.tolerances import (
    U32,
    close,
    last_place,
    magnitude,
    printed_numbers_match,
    rounds_to,
    tol,
)


def test_close_is_relative_plus_absolute_at_the_scale() -> None:
    assert close(4) == {"rtol": 4 * U32, "atol": 0.0}
    assert close(4, scale=2.0) == {"rtol": 4 * U32, "atol": 8 * U32}
    assert tol(1) == 2.0**-24
    np.testing.assert_allclose(np.float32(1 + 2 * U32), 1.0, **close(2))
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(np.float32(1 + 4 * U32), 1.0, **close(2))


def test_magnitude() -> None:
    assert magnitude(np.array([[-3.0, 1.0]])) == 3.0
    assert magnitude(np.zeros(0)) == 0.0


@pytest.mark.parametrize(
    ("token", "unit"),
    [("1.2346", 1e-4), ("0.1", 0.1), ("1.2346e-05", 1e-9), ("3.e+02", 100.0), ("7.", 1.0)],
)
def test_last_place(token: str, unit: float) -> None:
    assert last_place(token) == pytest.approx(unit)


@pytest.mark.parametrize(
    ("expected", "actual", "same"),
    [
        ("0.1235", "0.1234", True),  # one unit: a value on a digit boundary
        ("0.1236", "0.1234", False),
        ("5.8998e-03", "5.8997e-03", True),  # one unit of a scientific mantissa
        ("5.8999e-03", "5.8997e-03", False),
        ("3", "4", False),  # integers are counts, shapes, indices: exact
        ("12", "12", True),
        ("0.026268113404512405", "0.026268111541867256", True),  # 1.2u of float32
        ("0.026268113404512405", "0.026269113404512405", False),
        ("nan", "nan", True),
        ("nan", "1.0", False),
        ("inf", "inf", True),
        ("-inf", "inf", False),
    ],
)
def test_printed_numbers_match(expected: str, actual: str, same: bool) -> None:
    assert printed_numbers_match(expected, actual, 64) is same


def test_rounds_to_leaves_room_for_the_error() -> None:
    assert rounds_to(0.010500039, 0.0105, 4, error=1e-5)
    assert not rounds_to(0.010500039, 0.0105, 4, error=5e-5)  # could round to 0.0106 elsewhere
    assert not rounds_to(0.0107, 0.0105, 4, error=0.0)
