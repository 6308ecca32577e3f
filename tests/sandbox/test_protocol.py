"""The pipe protocol's reader: frames within their caps, and a worker's stack dump between them."""

from __future__ import annotations

import pytest

from server.sandbox import protocol
from server.sandbox.protocol import STACK, STDOUT, FrameReader, ProtocolError, frame

CAPS = {STDOUT: 100, protocol.RESULT: 100}
DUMP = b'Stack (most recent call first):\n  File "<program>", line 3 in f\n  File "<program>", line 5 in <module>\n'


def test_frames_arrive_whole_however_the_bytes_are_split() -> None:
    data = frame(STDOUT, b"hello\n") + frame(protocol.RESULT, b"{}")
    for cut in range(len(data)):
        reader = FrameReader(CAPS)
        got = reader.feed(data[:cut]) + reader.feed(data[cut:])
        assert got == [(STDOUT, b"hello\n"), (protocol.RESULT, b"{}")]


def test_a_stack_dump_between_frames_comes_back_line_by_line() -> None:
    data = frame(STDOUT, b"a\n") + DUMP + frame(STDOUT, b"b\n")
    expected = [
        (STDOUT, b"a\n"),
        (STACK, b"Stack (most recent call first):"),
        (STACK, b'  File "<program>", line 3 in f'),
        (STACK, b'  File "<program>", line 5 in <module>'),
        (STDOUT, b"b\n"),
    ]
    for cut in range(len(data)):
        reader = FrameReader(CAPS, stacks=True)
        assert reader.feed(data[:cut]) + reader.feed(data[cut:]) == expected


def test_a_reader_that_takes_no_stacks_refuses_text() -> None:
    with pytest.raises(ProtocolError):
        FrameReader(CAPS).feed(DUMP)


def test_frames_over_their_cap_and_endless_lines_are_refused() -> None:
    with pytest.raises(ProtocolError):
        FrameReader(CAPS).feed(protocol.HEADER.pack(STDOUT, 101))
    with pytest.raises(ProtocolError):
        FrameReader(CAPS, stacks=True).feed(b"S" + b"x" * protocol.STACK_LINE_CAP)
    with pytest.raises(ProtocolError):
        FrameReader(CAPS, stacks=True).feed(b"Stack:\n  " + b"x" * protocol.STACK_LINE_CAP)
