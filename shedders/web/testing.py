"""A real ``shedders serve`` in a background thread, for tests and benchmarks: ``with serving() as url: ...``."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

from shedders.web.app import create_app
from shedders.web.serve import HEADER_TIMEOUT, bind
from shedders.web.serve import server as make_server


@contextmanager
def serving(app=None, host: str = "127.0.0.1", header_timeout: float = HEADER_TIMEOUT):
    """Serve ``app`` (default: a fresh ``create_app()``) on ``host`` and a free port, as ``shedders serve`` does;
    yields the base URL."""
    app = app or create_app()
    sock = bind(host, 0)
    port = sock.getsockname()[1]
    server = make_server(app, header_timeout)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
