"""Where a program's printed text goes: :class:`ProgramStream` keeps the head and the tail of an
output past ``max_output_chars`` (the middle cut, the cut marked) and passes the rest on as it
is printed; :class:`StringSink` keeps it all (in-process runs, tests)."""

from __future__ import annotations

import collections
from typing import Any, Protocol


class Output(Protocol):
    """Where a program's printed text goes."""

    def write(self, text: str) -> int: ...

    def flush(self) -> None: ...


def _cut_mark(characters: int) -> str:
    """The line that stands where an output's middle was cut (as budgets.cut_text writes it)."""
    return f"\n… [{characters:,} characters cut: budget max_output_chars] …\n"


class ProgramStream:
    """``sys.stdout`` / ``sys.stderr`` of a program, within the output budget of ``limit``
    characters in all. Of the budget left, the first three quarters go to ``sink`` (the pipe,
    or a buffer in tests) as the program prints; past them only the latest part is kept, in a
    bounded ring, and sent when the program (or a notebook's cell) ends: in full if it fits,
    else its end after a mark saying how many characters were cut. The program runs on to its
    end (graph included), as a notebook cuts a cell's output."""

    encoding = "utf-8"
    errors = "strict"
    newlines = None

    def __init__(self, sink: Output, limit: int) -> None:
        self._sink = sink
        self._limit = limit
        self._sent = 0  # characters handed to the sink
        self._ring: collections.deque[str] = collections.deque()  # the latest, past the head
        self._ring_chars = 0
        self._dropped = 0  # characters the ring let go of since the last release
        self._finished = False
        self.written = 0  # characters the program printed, sent or not
        self._plan()

    def _plan(self) -> None:
        """Split the budget left into a head that streams and a tail kept in the ring."""
        left = max(0, self._limit - self._sent)
        self._tail_room = left // 4
        self._head = self._sent + left - self._tail_room

    @property
    def truncated(self) -> bool:
        """The program printed more than the budget: a middle part was cut."""
        return self.written > self._limit

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        size = len(text)
        self.written += size
        if self._finished:  # a finalizer printing after the end: counted, not sent
            return size
        room = self._head - self._sent
        if room > 0:
            self._send(text[:room])
            text = text[room:]
        if text:
            self._keep(text)
        return size

    def _send(self, text: str) -> None:
        self._sink.write(text)
        self._sent += len(text)

    def _keep(self, text: str) -> None:
        """Add ``text`` to the ring, letting its oldest text go beyond the tail's room."""
        if len(text) > self._tail_room:
            self._dropped += self._ring_chars + len(text) - self._tail_room
            self._ring.clear()
            self._ring_chars = 0
            text = text[len(text) - self._tail_room :]
            if not text:
                return
        self._ring.append(text)
        self._ring_chars += len(text)
        while self._ring_chars - len(self._ring[0]) >= self._tail_room:
            first = self._ring.popleft()
            self._ring_chars -= len(first)
            self._dropped += len(first)

    def _release(self) -> None:
        """Send what the ring kept (after the cut's mark, if it let text go or it does not
        fit), then plan the budget left."""
        pending = "".join(self._ring)
        room = self._limit - self._sent
        if self._dropped or len(pending) > room:
            cut_in_all = self._dropped + len(pending)
            keep = max(0, room - len(_cut_mark(cut_in_all)))  # the mark is at most that long
            kept = pending[len(pending) - keep :] if keep else ""
            mark = _cut_mark(cut_in_all - len(kept))
            pending = mark + kept if len(mark) <= room else ""
        if pending:
            self._send(pending)
        self._ring.clear()
        self._ring_chars = 0
        self._dropped = 0
        self._plan()

    def new_cell(self) -> None:
        """A notebook's next cell starts: the cell before's kept end is sent now, so that each
        cell's output (and its mark, if cut) is its own."""
        self._release()
        self.flush()

    def finish(self) -> None:
        """The program has ended: send the end the ring kept, and flush."""
        if not self._finished:
            self._release()
            self._finished = True
        self.flush()

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._sink.flush()

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError("the playground's output is not a file")


class StringSink:
    """An :class:`Output` that keeps the text (for running in-process, e.g. in tests)."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def getvalue(self) -> str:
        return "".join(self.parts)
