"""Hostile programs against the kernel jail: each ends as a user error or a harmless success
within its budget; nothing leaks, nothing is written, nothing connects; the server stays
healthy, and no program sees what another one left behind.

Programs are real Python, so the attacks go straight for the kernel: the server's environment
and files, /proc, sockets to a listener this test opens, fork/exec/threads, signals to the
server, ctypes, garbage on every descriptor, memory and BLAS bombs, ignored signals, a C-stack
overflow, and cross-run contamination. The old corpus of language-level escapes is kept too:
they now run (it is real Python) and must still reach nothing.
"""

from __future__ import annotations

import os
import secrets
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from server.sandbox import jail
from tests.api.conftest import TEST_SETTINGS, make_settings

pytestmark = pytest.mark.skipif(not jail.probe()[0], reason="no seccomp on this kernel")

SECRET = "agp-secret-" + secrets.token_hex(8)
SECRET_FILE = Path(f"/tmp/agp-hostile-secret-{os.getpid()}")
SENTINEL = Path(f"/tmp/agp-hostile-sentinel-{os.getpid()}")
WALL = float(TEST_SETTINGS["wall_clock_s"])  # type: ignore[arg-type]
GRACE = float(TEST_SETTINGS["hard_kill_grace_s"])  # type: ignore[arg-type]
#: how to reach the real `os` from a program (it cannot import it: any loaded module will do)
OS = "import warnings\nos = warnings.sys.modules['os']\n"


class Listener:
    """A TCP listener on loopback that records every connection it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = False
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=2)
        self.sock.close()


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.close()


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    """The app, started with a secret in its environment and one in a file it can read."""
    SENTINEL.unlink(missing_ok=True)
    SECRET_FILE.write_text(SECRET)
    os.environ["AGP_HOSTILE_SECRET"] = SECRET
    try:
        with TestClient(create_app(make_settings())) as c:
            yield c
    finally:
        del os.environ["AGP_HOSTILE_SECRET"]
        SECRET_FILE.unlink(missing_ok=True)


def corpus(port: int) -> list[tuple[str, str, set[str] | None]]:
    """(id, source, the error types it may end with; None: it may also succeed harmlessly)."""
    server_pid = os.getpid()
    perm = {"PermissionError"}
    return [
        # -- the server's secrets: environment, files, /proc, memory --------------------------
        ("environ", OS + f"print([v for v in os.environ.values() if '{SECRET[:10]}' in v])", None),
        ("environ-getenv", OS + "print(os.getenv('AGP_HOSTILE_SECRET'))", None),
        ("read-secret-file", f"print(open('{SECRET_FILE}').read())", perm),
        ("read-passwd", "print(open('/etc/passwd').read())", perm),
        ("proc-self-environ", "print(open('/proc/self/environ', 'rb').read())", perm),
        ("proc-parent-environ", f"print(open('/proc/{server_pid}/environ', 'rb').read())", perm),
        ("proc-parent-mem", f"open('/proc/{server_pid}/mem', 'rb').read(16)", perm),
        ("listdir", OS + "print(os.listdir('/'))", perm),
        ("stat", OS + f"print(os.stat('{SECRET_FILE}'))", perm),
        ("getcwd", OS + "print(os.getcwd())", perm),
        # -- writing ------------------------------------------------------------------------------
        ("write-file", f"open('{SENTINEL}', 'w').write('x')", perm),
        ("os-open", OS + f"os.open('{SENTINEL}', os.O_CREAT | os.O_WRONLY)", perm),
        ("mkdir", OS + f"os.mkdir('{SENTINEL}')", perm),
        ("numpy-save", f"import numpy as np\nnp.save('{SENTINEL}', np.ones(3))", perm),
        # -- the network ----------------------------------------------------------------------------
        ("socket", "import warnings\nsocket = warnings.sys.modules['socket']\n"
         f"socket.create_connection(('127.0.0.1', {port}), timeout=1)", perm),
        ("ctypes-socket", "import warnings\nctypes = warnings.sys.modules['ctypes']\n"
         "libc = ctypes.CDLL(None)\nfd = libc.socket(2, 1, 0)\nprint(fd)\n"
         "assert fd < 0", None),
        # -- processes, threads, signals ------------------------------------------------------------
        ("fork", OS + "os.fork()", perm),
        ("system", OS + f"print(os.system('touch {SENTINEL}'))", None),
        ("exec", OS + "os.execv('/bin/sh', ['sh', '-c', 'true'])", perm),
        ("posix-spawn", OS + f"os.posix_spawn('/usr/bin/touch', ['touch', '{SENTINEL}'], {{}})", perm),
        ("subprocess", "import warnings\nsp = warnings.sys.modules['subprocess']\n"
         f"sp.run(['touch', '{SENTINEL}'])", perm),
        ("thread", "import warnings\nth = warnings.sys.modules['threading']\n"
         "th.Thread(target=print).start()", {"RuntimeError"}),
        ("kill-server", OS + f"os.kill({server_pid}, 9)", perm),
        ("kill-parent", OS + "os.kill(os.getppid(), 9)", perm | {"ProcessLookupError"}),
        ("kill-everyone", OS + "os.kill(-1, 9)", perm),
        ("ctypes-system", "import warnings\nctypes = warnings.sys.modules['ctypes']\n"
         f"print(ctypes.CDLL(None).system(b'touch {SENTINEL}'))", None),
        ("ptrace", "import warnings\nctypes = warnings.sys.modules['ctypes']\n"
         f"print(ctypes.CDLL(None).ptrace(16, {server_pid}, 0, 0))", None),
        # -- the pipe back to the server ------------------------------------------------------------
        ("garbage-on-every-fd", OS + "for fd in range(64):\n    try:\n"
         "        os.write(fd, b'\\xff' * 64)\n    except OSError:\n        pass",
         {"RuntimeError"}),
        ("forged-result", OS + "import json\nbody = json.dumps({'ok': 'yes'}).encode()\n"
         "for fd in range(3, 64):\n    try:\n        os.write(fd, b'r' + len(body).to_bytes(4, 'big') + body)\n"
         "    except OSError:\n        pass", {"RuntimeError"}),
        ("close-every-fd", OS + "for fd in range(64):\n    try:\n        os.close(fd)\n"
         "    except OSError:\n        pass\nprint('gone')", {"RuntimeError"}),
        # -- time, memory, CPU ----------------------------------------------------------------------
        ("infinite-loop", "print('before')\nwhile True:\n    pass", {"TimeoutError"}),
        ("ignore-alarm", "import warnings\nsignal = warnings.sys.modules['signal']\n"
         "signal.signal(signal.SIGALRM, signal.SIG_IGN)\nprint('before')\nwhile True:\n    pass",
         {"TimeoutError"}),
        ("swallow-timeout", "print('before')\nwhile True:\n    try:\n        while True:\n"
         "            pass\n    except BaseException:\n        pass", {"TimeoutError"}),
        ("blas-bomb", "import numpy as np\na = np.ones((3000, 3000))\nprint('before')\n"
         "while True:\n    a = a @ a", {"TimeoutError"}),
        ("sleep", "import time\nprint('before')\ntime.sleep(3600)", {"TimeoutError"}),
        ("power-tower", "9**9**9", {"TimeoutError", "MemoryError"}),
        ("numpy-memory", "import numpy as np\nx = np.ones(10**11)", {"MemoryError"}),
        ("bytes-memory", "x = bytearray(10**11)", {"MemoryError"}),
        ("list-growth", "a = []\nwhile True:\n    a.append(' ' * 10**7)", {"MemoryError", "TimeoutError"}),
        ("huge-string", "s = 'a' * 10**11", {"MemoryError"}),
        ("deep-recursion", "def f(n):\n    return f(n + 1)\nf(0)", {"RecursionError"}),
        ("c-stack-overflow", "import sys\nsys.setrecursionlimit(10**7)\nx = []\n"
         "for _ in range(10**5):\n    x = [x]\nrepr(x)",
         {"RuntimeError", "RecursionError", "MemoryError", "TimeoutError"}),
        # output past max_output_chars is cut, not fatal (issue 20): a flood runs to its wall
        # clock with its output capped (the loop below checks the cap), one huge print succeeds
        ("print-flood", "while True:\n    print('spam' * 1000)", {"TimeoutError"}),
        ("one-huge-print", "print('x' * 40000)", None),
        ("stderr-flood", "import sys\nwhile True:\n    print('x' * 1000, file=sys.stderr)",
         {"TimeoutError"}),
        # -- what only the kernel bounds (issue 18: no engine budgets) ------------------------------
        ("huge-tensor", "import torch\nx = torch.zeros(10**9)", {"MemoryError"}),
        ("flop-bomb", "import torch\nx = torch.ones(400, 400)\nwhile True:\n    y = x @ x",
         {"TimeoutError"}),
        ("graph-bomb", "import torch\nx = torch.tensor(1.0, requires_grad=True)\n"
         "while True:\n    x = x * 1.0", {"TimeoutError", "MemoryError"}),
        # -- the source -----------------------------------------------------------------------------
        ("deep-parens", "x = " + "(" * 300 + "1" + ")" * 300, {"SyntaxError", "BudgetExceeded"}),
        ("many-nodes", "x=1\n" * 12000, {"BudgetExceeded"}),
        ("null-byte", "print(1)\x00", {"SyntaxError"}),
        # -- the old corpus: language-level escapes (they run now; they must reach nothing) ----
        ("subclasses-walk", "print(len(().__class__.__bases__[0].__subclasses__()))", None),
        ("wrap-close-globals", "for c in ().__class__.__base__.__subclasses__():\n"
         "    if c.__name__ == '_wrap_close':\n"
         f"        print(c.__init__.__globals__['system']('touch {SENTINEL}'))", None),
        # (since issue 18 every module Python has imports: what it then does is the jail's)
        ("builtins-import", "__builtins__['__import__']('os')", None),
        ("real-import", "import builtins\nprint(builtins)", None),
        ("eval-exec", "eval('1 + 1')\nexec('x = 1')\nprint(x)", None),
        ("compile-code", "c = compile('import os', 'f', 'exec')\nexec(c)", None),
        ("frame-walk", "import sys\nf = sys._getframe()", {"AttributeError"}),
        ("generator-frame", "g = (i for i in range(3))\nf = g.gi_frame\n"
         "print(f.f_back is None or f.f_back.f_globals.get('__name__'))", None),
        ("exception-traceback", "try:\n    1 / 0\nexcept Exception as e:\n"
         "    tb = e.__traceback__\n    while tb.tb_next:\n        tb = tb.tb_next\n"
         "    print(sorted(tb.tb_frame.f_globals)[:3])", None),
        ("format-globals", "def f():\n    pass\nprint('{0.__globals__[__name__]}'.format(f))", None),
        # torch.load reads only what this run saved (in memory), never a host file
        ("torch-escape", f"import torch\ntorch.load('{SENTINEL}')", {"FileNotFoundError"}),
        ("torch-escape-passwd", "import torch\ntorch.load('/etc/passwd')", {"FileNotFoundError"}),
        ("grad-fn-class", "import torch\nx = torch.ones(2, requires_grad=True)\n"
         "print((x * 2).grad_fn.__class__.__name__)", None),
        # -- the host's layout (issue 21): no path, no way back into the runner or zygote ---------
        ("code-filenames", "import torch, numpy, json\n"
         "print(torch.nn.Linear.forward.__code__.co_filename, json.loads.__code__.co_filename)\n"
         "print(sorted({f.__code__.co_filename for f in vars(numpy).values()\n"
         "              if hasattr(f, '__code__')}))", None),
        ("nested-code", "import torch, types\n"
         "todo = [f.__code__ for m in (torch, torch.nn.functional, torch.optim)\n"
         "        for f in vars(m).values() if isinstance(f, types.FunctionType)]\n"
         "seen = set()\nwhile todo:\n    c = todo.pop()\n    seen.add(c.co_filename)\n"
         "    todo += [k for k in c.co_consts if isinstance(k, types.CodeType)]\n"
         "print(sorted(seen))", None),
        ("traceback-walk", "try:\n    import torch\n    torch.ones(2) @ torch.ones(3)\n"
         "except Exception as e:\n    tb = e.__traceback__\n    while tb:\n"
         "        f = tb.tb_frame\n        print(f.f_code.co_filename, f.f_code.co_name,"
         " f.f_globals.get('__file__'))\n        tb = tb.tb_next", None),
        ("frame-walk-down", "import warnings\nf = warnings.sys._getframe()\nwhile f is not None:\n"
         "    print(f.f_code.co_filename, f.f_code.co_name, sorted(f.f_locals))\n"
         "    print(repr(f.f_locals)[:2000])\n"
         "    if {'children', 'config', 'ctl', 'specs'} & set(f.f_locals):\n"
         "        print('REA' + 'CHED the zygote', f.f_locals.get('children'))\n"
         "    f = f.f_back", None),
        ("interpreter-paths", "import warnings\nsys = warnings.sys\n"
         "print(sys.path, sys.executable, sys.prefix, sys.base_prefix, sys.exec_prefix,"
         " sys.orig_argv, getattr(sys, '_home', None), getattr(sys, '_stdlib_dir', None))\n"
         "print(sys.modules['os'].environ, sys.modules['posix'].environ)\n"
         "print([(n, getattr(m, '__file__', None), getattr(m, '__spec__', None))"
         " for n, m in list(sys.modules.items())][:400])", None),
        ("path-caches", "import warnings\nsys = warnings.sys\n"
         "print(sys.path_importer_cache, sys.modules['linecache'].cache.keys())\n"
         "print(sys.modules['sysconfig'].get_paths() if 'sysconfig' in sys.modules else None)\n"
         "print(sys.modules['site'].getsitepackages(), sys.modules['site'].PREFIXES)\n"
         "print(repr(license), license._Printer__filenames)", None),
    ]  # fmt: skip


def _text(body: dict[str, Any]) -> str:
    return repr(body)


#: Where this checkout, its virtual environment and its Python live: none of it may appear in
#: what a program can print (issue 21).
HOST_PATHS = sorted({str(Path(__file__).resolve().parents[2]), sys.prefix, sys.base_prefix})


def _host_paths_in(text: str) -> list[str]:
    return [path for path in HOST_PATHS if path in text]


def test_corpus_is_large_enough() -> None:
    assert len(corpus(1)) >= 60


def test_hostile_corpus(client: TestClient, listener: Listener) -> None:
    """Every hostile program: a user error of the expected kind (or a harmless success) within
    wall clock + grace; no secret in the answer; nothing written; no connection made."""
    failures = []
    for name, source, kinds in corpus(listener.port):
        started = time.monotonic()
        response = client.post("/api/v1/run", json={"source": source})
        elapsed = time.monotonic() - started
        if response.status_code != 200:
            failures.append((name, f"status {response.status_code}"))
            continue
        body = response.json()
        if SECRET in _text(body):
            failures.append((name, "the secret leaked"))
        if leaked := _host_paths_in(_text(body)):
            failures.append((name, f"a host path leaked: {leaked}"))
        if "REACHED" in body["stdout"]:
            failures.append((name, "it reached the zygote's state"))
        if kinds is not None and (body["ok"] or body["error"]["type"] not in kinds):
            failures.append((name, body["error"] or "succeeded"))
        if not body["ok"] and not body["error"]["message"]:
            failures.append((name, "an error without a message"))
        if elapsed > WALL + GRACE + 5.0:  # the budget, and slack for a loaded 2-core machine
            failures.append((name, f"took {elapsed:.1f} s"))
        if len(body["stdout"]) > int(TEST_SETTINGS["max_output_chars"]):  # type: ignore[call-overload]
            failures.append((name, "output over budget"))
        if SENTINEL.exists():
            failures.append((name, "wrote a file"))
            SENTINEL.unlink()
    assert not failures, failures
    assert listener.connections == 0


def test_killed_program_keeps_what_it_printed(client: TestClient) -> None:
    for source in (
        "print('before')\nwhile True:\n    pass",
        "import numpy as np\na = np.ones((3000, 3000))\nprint('before')\nwhile True:\n    a = a @ a",
    ):
        body = client.post("/api/v1/run", json={"source": source}).json()
        assert body["stdout"] == "before\n"
        assert body["error"]["type"] == "TimeoutError"
        assert "wall_clock_s" in body["error"]["message"]


def test_no_program_sees_what_another_left_behind(client: TestClient) -> None:
    poison = (
        "import torch, numpy, math\n"
        "torch.tensor = None\ntorch.nn.Linear = None\nnumpy.ones = None\nmath.pi = 3\n"
        "torch._stash = 'stashed'\nglobals()['stash'] = 'stashed'\n"
        "import warnings\nwarnings.sys.modules['builtins'].print = None\n"
    )
    body = client.post("/api/v1/run", json={"source": poison}).json()
    assert body["ok"], body["error"]
    check = (
        "import torch, numpy, math\n"
        "print(getattr(torch, '_stash', None), 'stash' in globals(), math.pi == 3)\n"
        "print(torch.tensor([1.0]), numpy.ones(1), torch.nn.Linear(1, 1).weight.shape)\n"
    )
    for _ in range(4):  # whichever worker serves it
        body = client.post("/api/v1/run", json={"source": check}).json()
        assert body["ok"], body["error"]
        assert body["stdout"] == "None False False\ntensor([1.]) [1.] torch.Size([1, 1])\n"


def test_server_healthy_after_the_corpus(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "sandbox": "seccomp"}
    body = client.post("/api/v1/run", json={"source": "print(6 * 7)"}).json()
    assert body["ok"] and body["stdout"] == "42\n"
    assert not SENTINEL.exists()


#: A program that searches everything it can reach (the loaded modules, its frames, the
#: collector's objects) for any string naming a host path, and prints what it finds. The paths
#: are spelt out letter by letter, so that the program's own text does not contain them.
SEARCH = """import warnings
sys = warnings.sys
gc = sys.modules["gc"]
needles = ["".join(letters) for letters in LETTERS]
seen = {id(n) for n in needles}
roots = list(sys.modules.values()) + gc.get_objects()
frame = sys._getframe()
while frame is not None:
    roots.append(frame)
    frame = frame.f_back
todo, found = roots, set()
while todo:
    obj = todo.pop()
    if id(obj) in seen:
        continue
    seen.add(id(obj))
    if isinstance(obj, (str, bytes)):
        text = obj if isinstance(obj, str) else obj.decode("latin-1")
        found.update(text[:200] for n in needles if n in text)
        continue
    if type(obj).__name__ == "code":
        todo.append(obj.co_filename)
    todo.extend(gc.get_referents(obj))
print(len(seen), "objects")
for text in sorted(found):
    print("FOUND", repr(text))
"""


def test_nothing_a_program_can_reach_names_a_host_path() -> None:
    """Walks every object reachable from the loaded modules and the program's frames (as the
    collector links them, code objects' file names included): no string names the checkout,
    the virtual environment or the interpreter's install. (Raw memory read through ctypes is
    out of scope: the dynamic loader's list of libraries holds their paths.)"""
    source = SEARCH.replace("LETTERS", repr([list(path) for path in HOST_PATHS]))
    with TestClient(create_app(make_settings(wall_clock_s=60.0, max_output_chars=100_000))) as c:
        body = c.post("/api/v1/run", json={"source": source}).json()
    assert body["ok"], body["error"]
    assert int(body["stdout"].split()[0]) > 50_000  # it did walk the world
    assert "FOUND" not in body["stdout"], body["stdout"]
