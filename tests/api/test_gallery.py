"""The gallery (examples/): each example prints what its index entry says, through the sandbox
as the playground runs it, and what PyTorch prints; the index and the files agree."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.examples import EXAMPLES, GalleryError, example, examples_dir, load_examples
from server.lessons import lessons
from tests.api.conftest import run
from tests.api.differential import run_with_torch, same_output

IDS = [e.id for e in EXAMPLES]


@pytest.mark.parametrize("example_id", IDS)
def test_every_gallery_example_runs_as_its_explanation_says(
    client: TestClient, example_id: str
) -> None:
    """What it prints, how it ends (an error's type and line) and what its last expression shows."""
    chosen = example(example_id)
    body = run(client, chosen.source, bindings=chosen.bindings or {})
    assert same_output(body["stdout"], chosen.output), (body["stdout"], chosen.output)
    if chosen.error is None:
        assert body["ok"], body["error"]
    else:
        assert not body["ok"], "the example should fail"
        assert (body["error"]["type"], body["error"]["line"]) == (
            chosen.error.type,
            chosen.error.line,
        )
    assert body["result"] == chosen.result


@pytest.fixture(scope="module")
def torch_oracle() -> None:
    pytest.importorskip("torch")


@pytest.mark.torch
@pytest.mark.parametrize("example_id", [e.id for e in EXAMPLES if not e.bindings])
def test_every_gallery_program_prints_what_pytorch_prints(
    client: TestClient, torch_oracle: None, example_id: str
) -> None:
    """The expected output is PyTorch's (the same file run by real Python with real torch), and
    an example's error is PyTorch's, message included."""
    chosen = example(example_id)
    expected = run_with_torch(chosen.source)
    assert same_output(chosen.output, expected["stdout"]), (chosen.output, expected["stdout"])
    if chosen.error is None:
        assert expected["error"] is None, expected["error"]
        return
    assert expected["error"] is not None
    assert (chosen.error.type, chosen.error.line) == (
        expected["error"]["type"],
        expected["error"]["line"],
    )
    error = run(client, chosen.source)["error"]
    assert error["message"].split("\n")[0] == expected["error"]["message"]


def test_the_gallery_lists_the_examples_in_index_order_then_the_lessons(
    client: TestClient,
) -> None:
    body = client.get("/api/v1/examples").json()
    assert [e["id"] for e in body] == IDS + [lesson.id for lesson in lessons()]
    first = body[0]
    assert first["source"] == (examples_dir() / f"{first['id']}.py").read_text()
    assert next(e for e in body if e["id"] == "expression")["bindings"]["x"] == {
        "value": 2.0,
        "requires_grad": False,
    }


def test_the_broken_engine_is_the_seed_with_its_multiply_rule_assigning() -> None:
    """value-broken-plus-equals is seed-tiny-autograd with = for += in one rule, nothing else."""
    seed = example("seed-tiny-autograd").source.splitlines()
    broken = example("value-broken-plus-equals").source.splitlines()
    changed = [
        line
        for line in difflib.unified_diff(seed, broken, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert changed == [
        "-        def bw(): self.grad += other.data * out.grad; other.grad += self.data * out.grad",
        "+        def bw(): self.grad = other.data * out.grad; other.grad = self.data * out.grad"
        "  # = instead of +=",
    ]


def _gallery(tmp_path: Path, index: str, programs: dict[str, str]) -> Path:
    (tmp_path / "index.toml").write_text(index)
    for name, source in programs.items():
        (tmp_path / f"{name}.py").write_text(source)
    return tmp_path


def test_an_entry_loads_with_its_file(tmp_path: Path) -> None:
    index = '[[example]]\nid = "a"\ntitle = "A"\nexplanation = "e"\noutput = "1\\n"\n'
    (loaded,) = load_examples(_gallery(tmp_path, index, {"a": "print(1)\n"}))
    assert (loaded.id, loaded.source, loaded.output, loaded.error) == (
        "a",
        "print(1)\n",
        "1\n",
        None,
    )


@pytest.mark.parametrize(
    ("index", "programs", "says"),
    [
        ('[[example]]\nid = "a"\ntitle = "A"\nexplanation = "e"\noutput = ""\n', {}, "no program"),
        (
            '[[example]]\nid = "a"\ntitle = "A"\nexplanation = "e"\n',
            {"a": ""},
            "missing ['output']",
        ),
        (
            '[[example]]\nid = "a"\ntitle = "A"\nexplanation = "e"\noutput = ""\nsorce = ""\n',
            {"a": ""},
            "unknown keys ['sorce']",
        ),
        (
            '[[example]]\nid = "a"\ntitle = "A"\nexplanation = "e"\noutput = ""\n',
            {"a": "", "b": ""},
            "not in the index: ['b']",
        ),
        (
            '[[example]]\nid = "../a"\ntitle = "A"\nexplanation = "e"\noutput = ""\n',
            {},
            "bad example id",
        ),
        (
            '[[example]]\nid = "a"\ntitle = "A"\nexplanation = "e"\noutput = ""\n'
            'error = { type = "E" }\n',
            {"a": ""},
            "error needs exactly type and line",
        ),
    ],
)
def test_a_wrong_index_is_refused_with_what_is_wrong(
    tmp_path: Path, index: str, programs: dict[str, str], says: str
) -> None:
    with pytest.raises(GalleryError, match=re.escape(says)):
        load_examples(_gallery(tmp_path, index, programs))


def test_the_readme_program_prints_what_its_comment_says(client: TestClient) -> None:
    """The README's program, run as the playground runs it, prints its last line's comment."""
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    source = re.search(r"```python\n(.*?)```", readme, re.S)
    assert source is not None, "the README shows a program"
    program = source.group(1)
    said = program.rstrip().splitlines()[-1].split("#", 1)[1].strip()
    body = run(client, program)
    assert body["ok"], body["error"]
    assert body["stdout"] == said + "\n"
    assert len(program.splitlines()) == 8  # the README's eight-line program
