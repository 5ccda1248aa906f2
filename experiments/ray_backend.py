"""Running chunks of work on a Ray cluster, with long-lived workers.

    results = run_chunks(play_chunk, cfg_dict, todo, workers=2, on_result=done)

Each worker is a Ray actor: one process that imports shedders (loading the numba kernels from the cache, or
compiling
them) once, with one numba thread, and then plays every chunk it is given. Chunks go out in batches (several per
call, at most two calls in flight per actor) so that scheduling stays a small share of the time; a chunk's result
does not depend on which worker played it or in which batch, so the results equal the local backend's for the same
seed. Without Ray installed, :func:`require_ray` says which extra to install in one line.

On a cluster: start it (``ray start --head`` on one machine, ``ray start --address HEAD:6379`` on the others), then
run the experiment on any of them with ``RAY_ADDRESS=HEAD:6379`` (or ``--ray-address``); ``--workers`` is the
number of actors, one CPU each. Every machine needs shedders installed the same way.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterable

RAY_HINT = "pip install -e '.[ray]'"


def require_ray() -> None:
    """``ValueError`` naming the extra when Ray is not installed."""
    if importlib.util.find_spec("ray") is None:
        raise ValueError(f"--backend ray needs Ray, which is not installed: {RAY_HINT}")


#: the environment every worker process starts with (the actors' ``runtime_env``): one numba and one OpenMP thread,
#: which torch's pool follows; set at start, it costs the worker no torch import (about 0.85 s of CPU each)
ONE_THREAD_ENV = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def one_thread() -> None:
    """A worker's own CPU: its numba loops and, where torch is installed, its networks on one thread each."""
    import numba

    numba.set_num_threads(1)
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


def init(workers: int, address: str | None = None):
    """Connect to the cluster at ``address`` (or ``$RAY_ADDRESS``), or start a local one with ``workers`` CPUs."""
    require_ray()
    import ray

    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS")
        ray.init(address=address, num_cpus=None if address else workers, include_dashboard=False,
                 log_to_driver=False)
    return ray


def _batches(todo: list, workers: int, per_call: int | None) -> list[list]:
    """Split ``todo`` into batches: about sixteen per worker, so that no worker idles long at the end while another
    finishes a batch, and each call still carries enough work for its scheduling to be a small share."""
    if per_call is None:
        per_call = max(1, len(todo) // (16 * workers))
    return [todo[i:i + per_call] for i in range(0, len(todo), per_call)]


def run_chunks(fn: Callable, cfg_dict: dict, todo: Iterable[tuple], workers: int, on_result: Callable,
               address: str | None = None, per_call: int | None = None) -> None:
    """Call ``fn(cfg_dict, *args)`` for every ``args`` in ``todo`` on ``workers`` Ray actors; ``on_result`` gets
    each result in the driver as it arrives (in completion order). The actors live for this call only; a loop that
    calls again and again (rounds of training) keeps a :class:`Pool` instead."""
    todo = list(todo)
    if not todo:
        init(workers, address)
        return
    pool = Pool(workers, address)
    try:
        pool.run(fn, cfg_dict, todo, on_result, per_call)
    finally:
        pool.close()


class Pool:
    """``workers`` long-lived Ray actors, one CPU and one numba and torch thread each, that run batches of chunks
    call after call (a training run starts them once, not every round). Ray starts its workers at nice 15, so
    anything else running on the machine goes first."""

    def __init__(self, workers: int, address: str | None = None):
        ray = init(workers, address)

        @ray.remote(num_cpus=1)
        class Worker:
            def threads(self):
                """(numba's threads, torch's threads or None without torch) in this worker."""
                import numba

                try:
                    import torch
                except ImportError:
                    return numba.get_num_threads(), None
                return numba.get_num_threads(), torch.get_num_threads()

            def run(self, fn, cfg_dict, batch):
                return [fn(cfg_dict, *args) for args in batch]

        self.ray, self.workers = ray, workers
        self.actors = [Worker.options(runtime_env={"env_vars": ONE_THREAD_ENV}).remote() for _ in range(workers)]

    def run(self, fn: Callable, cfg_dict: dict, todo: list, on_result: Callable,
            per_call: int | None = None) -> None:
        ray = self.ray
        if not todo:
            return
        shared = ray.put(cfg_dict)  # sent to the object store once, not with every batch
        queue = _batches(todo, self.workers, per_call)
        pending = {}
        for actor in self.actors:  # two calls in flight per actor: the next batch waits there while one runs
            for _ in range(2):
                if queue:
                    pending[actor.run.remote(fn, shared, queue.pop(0))] = actor
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            ref = ready[0]
            actor = pending.pop(ref)
            for result in ray.get(ref):
                on_result(result)
            if queue:
                pending[actor.run.remote(fn, shared, queue.pop(0))] = actor

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)
        self.actors = []
