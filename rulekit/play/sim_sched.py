"""Where shards run: in this process, in local worker processes, or on a Dask cluster.

Each scheduler takes shards and hands back finished ones in whatever order they finish;
the caller keeps only a few in flight, so nothing grows with the number of games.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from rulekit.errors import InputError, RulekitError, error
from rulekit.play.sim_shard import Shard, ShardResult, play_shard


class Scheduler(Protocol):
    slots: int  # games it plays at once: the caller keeps a few shards per slot in flight

    def submit(self, shard: Shard) -> None: ...

    def finished(self) -> list[ShardResult]:
        """Wait for at least one submitted shard; return every one that is done."""
        ...

    def close(self) -> None: ...

    def abort(self) -> None:
        """Stop at once, dropping the shards in flight."""
        ...


class InProcess:
    """One worker: the shards run here, one after the other."""

    def __init__(self) -> None:
        self.slots = 1
        self.queue: deque[Shard] = deque()

    def submit(self, shard: Shard) -> None:
        self.queue.append(shard)

    def finished(self) -> list[ShardResult]:
        return [play_shard(self.queue.popleft())]

    def close(self) -> None:
        self.queue.clear()

    def abort(self) -> None:
        self.close()


def _outcome(shard: Shard, get: Any) -> ShardResult:
    """A shard's result; a worker that could not run the shard at all stops the run."""
    try:
        result: ShardResult = get()
    except RulekitError:
        raise
    except Exception as exc:
        raise InputError(
            [
                error(
                    f"a worker could not play seeds {shard.start}..{shard.stop - 1}: "
                    f"{type(exc).__name__}: {exc}",
                    where="--scheduler",
                )
            ]
        ) from None
    return result


def watch_parent(parent: int, every: float = 0.5) -> None:
    """In a worker: end this process when ``parent`` (the run that started it) is gone, so
    a run killed outright (SIGKILL, or SIGTERM before it could stop its pool) leaves no
    worker behind. A worker's own parent is the fork server, so the run is watched by pid."""

    def watch() -> None:
        while True:
            time.sleep(every)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(1)  # the run is gone: nobody will read this worker's games
            except PermissionError:
                pass  # the pid exists (another user's now, after reuse): keep going

    threading.Thread(target=watch, name="rulekit-watch-parent", daemon=True).start()


# How often a shard is played again after the worker playing it died (killed, out of
# memory): a shard that kills its worker every time is reported, not tried forever.
SHARD_RETRIES = 2


class Processes:
    """Local worker processes (``--scheduler processes``). A worker that dies takes the
    pool down with every shard in flight; the pool is started again and those shards are
    played again (up to :data:`SHARD_RETRIES` times each), the finished ones kept, as Dask
    does with a lost worker."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool = self._start()
        self.slots = workers
        self.pending: dict[Future[ShardResult], Shard] = {}
        self.retried: dict[tuple[int, int], int] = {}

    def _start(self) -> ProcessPoolExecutor:
        # forkserver, not fork: the parent runs a progress thread, and forking a process
        # with threads can copy a held lock into the child
        context = multiprocessing.get_context("forkserver")
        return ProcessPoolExecutor(
            self.workers, mp_context=context, initializer=watch_parent, initargs=(os.getpid(),)
        )

    def submit(self, shard: Shard) -> None:
        self.pending[self.pool.submit(play_shard, shard)] = shard

    def finished(self) -> list[ShardResult]:
        done, _ = wait(self.pending, return_when=FIRST_COMPLETED)
        if not any(isinstance(f.exception(), BrokenProcessPool) for f in done):
            return [_outcome(self.pending.pop(f), f.result) for f in done]
        # a worker died: what finished before is kept, the rest is played again
        results, lost = [], []
        for future, shard in list(self.pending.items()):
            if future.done() and future.exception() is None:
                results.append(future.result())
            else:
                lost.append(shard)
        self.pending.clear()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = self._start()
        for shard in lost:
            key = (shard.start, shard.stop)
            self.retried[key] = self.retried.get(key, 0) + 1
            if self.retried[key] > SHARD_RETRIES:
                raise InputError(
                    [
                        error(
                            f"a worker died playing seeds {shard.start}..{shard.stop - 1}, "
                            f"{SHARD_RETRIES + 1} times: the run stops (the shards finished "
                            "are kept in --out)",
                            where="--scheduler",
                            hint="play one of those seeds alone: rulekit run RULEBOOK --seed N",
                        )
                    ]
                )
            self.submit(shard)
        return results

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def abort(self) -> None:
        # the pool cannot stop a running task: its processes are ended (a shard in flight
        # is simply played again by the next run)
        processes = list(getattr(self.pool, "_processes", {}).values())
        self.pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()


def need_distributed() -> Any:
    try:
        import dask.distributed
    except ImportError:
        raise InputError(
            [
                error(
                    "a Dask scheduler needs dask.distributed, and it is not installed",
                    where="--scheduler",
                    hint="pip install -e '.[dask]'",
                )
            ]
        ) from None
    return dask.distributed


# How long a run waits for a worker to join an existing scheduler before saying so.
NO_WORKERS_SECONDS = 30.0


class Dask:
    """A Dask cluster: a local one with ``workers`` processes (``--scheduler dask``) or an
    existing scheduler (``--scheduler tcp://HOST:PORT``) whose workers have rulekit
    installed; the rulebook's files travel with each shard (:func:`pack_rulebook`), so they
    need not share the client's folders."""

    def __init__(self, address: str | None, workers: int) -> None:
        distributed = need_distributed()
        self.cluster = None
        if address is None:
            self.cluster = distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,  # the interpreter is pure Python: one game per process
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=logging.CRITICAL,  # its shutdown chatter; errors come back as results
            )
            self.client = distributed.Client(self.cluster)
        else:
            try:
                self.client = distributed.Client(address, timeout="10s")
            except OSError as exc:
                raise InputError(
                    [
                        error(
                            f"cannot reach the Dask scheduler at {address}: {exc}",
                            where="--scheduler",
                            hint="start one with `dask scheduler` and workers with "
                            "`dask worker ADDRESS`",
                        )
                    ]
                ) from None
            try:  # a scheduler without workers would be waited on forever
                self.client.wait_for_workers(1, timeout=NO_WORKERS_SECONDS)
            except (TimeoutError, OSError):
                self.client.close()
                raise InputError(
                    [
                        error(
                            f"the Dask scheduler at {address} has no workers "
                            f"(waited {NO_WORKERS_SECONDS:g} s)",
                            where="--scheduler",
                            hint="start workers with `dask worker "
                            f"{address}` (each with rulekit installed)",
                        )
                    ]
                ) from None
        workers_info = self.client.scheduler_info().get("workers", {}).values()
        self.slots = max(1, sum(int(w.get("nthreads", 1)) for w in workers_info))
        self.done = distributed.as_completed()
        self.pending: dict[Any, Shard] = {}

    def submit(self, shard: Shard) -> None:
        future = self.client.submit(play_shard, shard, pure=False)
        self.pending[future] = shard
        self.done.add(future)

    def finished(self) -> list[ShardResult]:
        future = next(self.done)
        shard = self.pending.pop(future)
        result = _outcome(shard, future.result)
        future.release()
        return [result]

    def close(self) -> None:
        for future in self.pending:
            future.cancel()
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def abort(self) -> None:
        self.close()


def scheduler_for(name: str, workers: int) -> Scheduler:
    if name == "processes":
        return InProcess() if workers <= 1 else Processes(workers)
    if name == "dask":
        return Dask(None, workers)
    if name.startswith("tcp://"):
        return Dask(name, workers)
    raise InputError(
        [
            error(
                f"unknown scheduler '{name}'",
                where="--scheduler",
                hint="use processes, dask or tcp://HOST:PORT",
            )
        ]
    )
