"""The pipe protocol between the server and a jailed worker: typed, length-prefixed frames.

A frame is one kind byte, a 4-byte big-endian length and that many payload bytes. The worker
says ``READY`` (empty) once it is jailed and warm; the server sends one ``JOB`` frame (JSON);
the worker answers with any number of ``STDOUT`` frames (UTF-8
text, as the program prints it), for a notebook a ``CELL`` frame as each cell starts (its
number, ASCII digits: what follows is that cell's output), and at most one ``RESULT`` frame
(JSON) before it exits.
Everything the worker sends is untrusted: :class:`FrameReader` refuses unknown kinds and
frames over their caps instead of buffering them.
"""

from __future__ import annotations

import struct

JOB = b"j"
STDOUT = b"o"
RESULT = b"r"
READY = b"y"  # empty: the worker is jailed and warm, waiting for its job
CELL = b"c"  # a notebook's cell starts: its number (1-based) in ASCII digits
KINDS = frozenset({JOB, STDOUT, RESULT, READY, CELL})
#: the longest CELL payload (a cell number)
CELL_CAP = 6

#: Not a frame: the program's Python stack as CPython's faulthandler writes it (plain text: a
#: header line such as ``Stack (most recent call first):``, then lines that start with two
#: spaces), which a worker writes between frames when the server asks before a hard kill.
#: A reader made with ``stacks=True`` hands its lines back as frames of this kind.
STACK = b"S"
#: the longest line of a stack dump
STACK_LINE_CAP = 1024

HEADER = struct.Struct("!cI")

# The zygote's control socket (SOCK_SEQPACKET): see server.sandbox.zygote.
PID = struct.Struct("!i")
PID_STATUS = struct.Struct("!ii")
CONTROL_FD_ENV = "AGP_ZYGOTE_FD"


class ProtocolError(Exception):
    """The peer sent something that is not a well-formed frame within its caps."""


def cell_number(payload: bytes) -> int:
    """A CELL frame's number; ProtocolError unless it is 1 to CELL_CAP ASCII digits."""
    if not (0 < len(payload) <= CELL_CAP and payload.isdigit()):
        raise ProtocolError("a cell frame that is not a cell number")
    return int(payload)


def frame(kind: bytes, payload: bytes) -> bytes:
    """One frame: header + payload."""
    return HEADER.pack(kind, len(payload)) + payload


class FrameReader:
    """Incremental parser: ``feed`` bytes as they arrive, get the complete frames back.

    ``caps`` bounds each kind's payload; a frame over its cap (or of an unknown kind) is a
    :class:`ProtocolError` as soon as its header is seen, before its payload is buffered.
    """

    def __init__(self, caps: dict[bytes, int], stacks: bool = False) -> None:
        self.caps = caps
        self.stacks = stacks
        self._in_stack = False
        self._buffer = bytearray()

    def _stack_line(self) -> tuple[str, bytes]:
        """``("line", text)``: the next line of a stack dump; ``("wait", b"")``: it has not all
        arrived; ``("done", b"")``: the dump is over (the next byte does not continue it)."""
        if self._in_stack and self._buffer[:1] != b" ":
            self._in_stack = False
            return "done", b""
        end = self._buffer.find(b"\n", 0, STACK_LINE_CAP)
        if end < 0:
            if len(self._buffer) >= STACK_LINE_CAP:
                raise ProtocolError("a stack dump's line is too long")
            return "wait", b""
        self._in_stack = True
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return "line", line

    def feed(self, data: bytes) -> list[tuple[bytes, bytes]]:
        self._buffer += data
        frames: list[tuple[bytes, bytes]] = []
        while self._buffer:
            if self.stacks and (self._in_stack or self._buffer[:1].isupper()):
                state, line = self._stack_line()
                if state == "wait":
                    break
                if state == "line":
                    frames.append((STACK, line))
                continue
            if len(self._buffer) < HEADER.size:
                break
            kind, size = HEADER.unpack_from(self._buffer)
            cap = self.caps.get(kind)
            if cap is None:
                raise ProtocolError(f"unknown frame kind {kind!r}")
            if size > cap:
                raise ProtocolError(f"a {kind!r} frame of {size} bytes is over its cap of {cap}")
            end = HEADER.size + size
            if len(self._buffer) < end:
                break
            frames.append((kind, bytes(self._buffer[HEADER.size : end])))
            del self._buffer[:end]
        return frames

    @property
    def pending(self) -> int:
        """Bytes received that do not yet form a whole frame."""
        return len(self._buffer)
