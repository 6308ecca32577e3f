"""The lesson programs: ``tests/programs/lessons/*.py``, and lessons made from a gallery example.

Each lesson program is a small learner program (the seeds' examples and their variations). Most
are files. A lesson that is a gallery example as the editor loads it (``examples/<id>.py``) with
lines of its own is not a copy of that example: it reads the example's file, makes its edits
(each passage of the example it changes must stand there once) and adds the lines it runs after
it (:data:`FROM_THE_GALLERY`). Every reader of the lessons takes them from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from server.examples import example

DIRECTORY = Path(__file__).parent / "programs" / "lessons"


@dataclass(frozen=True)
class FromGallery:
    """A lesson made of a gallery example: ``edits`` are (a passage of the example, what the
    lesson has in its place); ``then`` is what the lesson runs after the example."""

    example: str
    then: str
    edits: tuple[tuple[str, str], ...] = ()

    def source(self) -> str:
        text = example(self.example).source
        for old, new in self.edits:
            if text.count(old) != 1:
                raise ValueError(f"{old!r} does not stand once in examples/{self.example}.py")
            text = text.replace(old, new)
        return text + self.then


FROM_THE_GALLERY = {
    # the class-based idiom with Adam, 30 steps (issue 22 measures its answer): a Net with its
    # layers as attributes and the computation in forward, fitting XOR; every backward pass
    # is recorded
    "class_net_adam_30": FromGallery(
        "net-module",
        edits=(
            ("for step in range(200):\n", "for step in range(30):\n"),
            (
                "    if step % 50 == 0:\n"
                '        print(f"step {step:3d}  loss {loss.item():.4f}")\n',
                "    if step % 10 == 0:\n"
                '        print(f"step {step:2d}  loss {loss.item():.4f}")\n',
            ),
        ),
        then="",
    ),
    "seed_linreg_hand": FromGallery(
        "linear-regression",
        then="print(loss.requires_grad, loss.grad_fn is not None)\n"
        "print(prediction.grad_fn, loss.grad_fn)\n",
    ),
    # the training step, printing w before it, the loss every ten steps, and at the end the
    # tensors and their gradients (still there after zero_())
    "seed_train_reset": FromGallery(
        "training-step",
        edits=(
            ("learning_rate = 0.05\n\n", "learning_rate = 0.05\nprint(w)\n"),
            (
                "        b.grad.zero_()\n",
                "        b.grad.zero_()\n"
                "    if step % 10 == 0:\n"
                '        print(f"step {step:2d} loss {loss.item():.4f}")\n',
            ),
        ),
        then="print(w, b)\nprint(w.grad, b.grad)\n",
    ),
}


def names() -> list[str]:
    """Every lesson program's name: its file's stem, or its key in FROM_THE_GALLERY."""
    return sorted([p.stem for p in DIRECTORY.glob("*.py")] + list(FROM_THE_GALLERY))


def source(name: str) -> str:
    """The lesson program ``name`` as it runs."""
    if name in FROM_THE_GALLERY:
        return FROM_THE_GALLERY[name].source()
    return (DIRECTORY / f"{name}.py").read_text()
