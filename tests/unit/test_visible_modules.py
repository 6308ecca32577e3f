"""``sys.modules`` as a program sees it: copied per run in a process that runs many programs,
handed over as made in one that runs one (a sandbox worker, forked after the zygote made it)."""

from __future__ import annotations

import os
import sys

from server.program import imports
from server.program.imports import Importer, preload, visible_modules
from server.program.output import StringSink


def _bound(importer: Importer) -> dict[str, object]:
    importer.bind_sys_streams(StringSink(), StringSink())
    modules: dict[str, object] = importer.modules["sys"].modules
    return modules


def test_a_process_that_runs_many_programs_gives_each_a_copy() -> None:
    loaded = preload()
    made = visible_modules(loaded)
    first = _bound(Importer(loaded))
    assert first is not made and first == made
    first.clear()  # a program spoiling its own
    second = _bound(Importer(loaded))
    assert second == made and "json" in second and second["torch"] is loaded["torch"]


def test_visible_modules_is_the_loaded_modules_less_ours_then_ours() -> None:
    loaded = preload()
    made = visible_modules(loaded)
    assert visible_modules(loaded) is made  # remembered
    for name, module in loaded.items():
        assert made[name] is module
    assert not any(name.partition(".")[0] in ("server", "engine") for name in made)
    assert made["json"] is sys.modules["json"]


def test_a_one_program_process_gets_the_dict_made_before_its_fork() -> None:
    loaded = preload()
    imports.settle_sys_modules(loaded)  # as the zygote does, last thing before it forks
    made = visible_modules(loaded)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: one program, then it exits
        code = 1
        try:
            imports.one_program_per_process()
            bound = _bound(Importer(loaded))
            code = 0 if bound is made and bound is _bound(Importer(loaded)) else 2
        finally:
            os.write(write, bytes([code]))
            os._exit(0)
    os.close(write)
    answer = os.read(read, 1)
    os.close(read)
    os.waitpid(pid, 0)
    assert answer == bytes([0])
    assert imports._shared is False  # this process (the tests') still copies
