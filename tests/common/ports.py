"""Local servers on 127.0.0.1 (REAPI servers of tests/remote, the BuildGrid cluster of bench/scaleout_bench): a free port, and waiting for one."""

import contextlib
import socket
import time


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on (the OS's choice)."""
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, proc, what="server", error=RuntimeError, timeout_s=60.0):
    """Returns once something listens on 127.0.0.1:`port`; raises `error` when `proc` (if any) exits first, or on timeout."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise error("%s exited with %s before listening on 127.0.0.1:%d" % (what, proc.returncode, port))
        with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
            s.settimeout(0.5)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise error("%s did not listen on 127.0.0.1:%d within %.0f s" % (what, port, timeout_s))
