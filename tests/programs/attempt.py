"""The error tours' one helper: run ``fn`` and print its result, or the error's type and the
first line of its message (the same in PyTorch and in the engine, so the two outputs compare).

Not a program: tests/unit/test_programs_vs_torch.py skips it. The tours import it by name, as
``python tests/programs/<tour>.py`` puts this folder first on ``sys.path`` (so does
run_with_engine.py, which lives here too).
"""


def attempt(label, fn):
    try:
        r = fn()
        print(label, "->", r)
    except Exception as e:
        print(label, type(e).__name__, str(e).split("\n")[0])
