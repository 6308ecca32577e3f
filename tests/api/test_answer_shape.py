"""The answer's shape is written once (server/program/answer.py) and is the schema's.

``empty_answer`` is what the worker's runner starts from and what the server answers for a run
with no answer of its own (a device that is not here, a stopped or killed run): it must name
every field the response schema has, and validate against it as it is."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from server.program.answer import empty_answer
from server.runs.responses import error_response, notebook_error_response
from server.schemas import NotebookRunResponse, RunResponse


@pytest.mark.parametrize(
    ("answer", "model"),
    [
        (empty_answer("cpu"), RunResponse),
        (empty_answer("cpu", shown=3), NotebookRunResponse),
        (error_response("cuda", "RuntimeError", "no GPU here"), RunResponse),
        (notebook_error_response("cuda", 2, "RuntimeError", "no GPU here"), NotebookRunResponse),
    ],
)
def test_the_empty_answer_is_the_schemas_whole_shape(
    answer: dict[str, Any], model: type[BaseModel]
) -> None:
    model.model_validate(answer, strict=True)
    assert set(answer) == set(model.model_fields), set(answer) ^ set(model.model_fields)


def test_a_notebooks_answer_names_its_cell_and_not_a_result() -> None:
    answer = empty_answer("cpu", shown=4)
    assert answer["cell"] == 4 and answer["cells"] == [] and "result" not in answer
    assert error_response("cpu", "E", "m")["error"] == {
        "type": "E",
        "message": "m",
        "line": None,
        "col": None,
    }
