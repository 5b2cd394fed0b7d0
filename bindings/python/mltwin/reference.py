"""The built-in serving policies re-written in Python, as starting points for your own.

Each makes exactly the decisions of its C++ counterpart (the tests run both and compare every
table), so a notebook can start from a faithful baseline and change one rule:

* :class:`DjlWlm` — DJL Serving 0.23.0's worker autoscaling (WorkLoadManager.runJob / scaleUp,
  wlm/src/main/java/ai/djl/serving/wlm/WorkLoadManager.java; TemporaryBatchAggregator's idle
  rule), the C++ ``DjlWlmPolicy``.
* :class:`Lru` — least-recently-used model cache, the C++ ``make_lru_cache_policy()``.

Times are integer ns, sizes bytes.
"""
from __future__ import annotations

import collections
from typing import Callable, List, Optional

from ._mltwin import AdmitDecision, WorkerDecision
from .policies import AutoscalingPolicy, ModelCachePolicy

__all__ = ["DjlWlm", "Lru"]


class DjlWlm(AutoscalingPolicy):
    """DJL Serving 0.23.0's WorkLoadManager, in Python.

    on_arrival: a request is rejected (503) when the job queue has one slot left and no worker
    is free (all busy), when the queue is full, or when every worker is gone; a rejection still
    tries to add a worker. An admitted request adds one worker when none runs, or when fewer
    than max_workers run and the queue, with the request, holds more than 2 x batch_size.

    on_worker_free: permanent workers never retire; a temporary worker retires when more than
    max_idle_time has passed since it last *took* a batch (DJL's rule), or — with
    ``idle_from_batch_end`` — after a whole max_idle_time without a job (the remedy).
    """

    def __init__(self, idle_from_batch_end: bool = False):
        self.idle_from_batch_end = idle_from_batch_end
        if type(self).name == AutoscalingPolicy.name:  # a subclass may name itself
            self.name = "djl-wlm+idle-from-batch-end" if idle_from_batch_end else "djl-wlm"

    def on_arrival(self, pool) -> AdmitDecision:
        remaining = pool.queue_capacity - pool.queue_size
        can_grow = pool.workers_running < pool.max_workers
        if remaining == 1 and pool.workers_started == 0:
            return AdmitDecision(False, can_grow, "job queue has one slot left and every worker is busy")
        if pool.workers_running == 0 and pool.max_workers == 0:
            return AdmitDecision(False, False, "all model workers have been shut down")
        if remaining <= 0:
            return AdmitDecision(False, can_grow, "job queue is full")
        if pool.workers_running == 0 and pool.max_workers > 0:
            return AdmitDecision(True, True, "no worker is running")
        if can_grow and pool.queue_size + 1 > 2 * pool.batch_size:
            return AdmitDecision(True, True, "job queue longer than 2 x batch_size")
        return AdmitDecision(True, False, "")

    def on_worker_free(self, worker) -> WorkerDecision:
        if not worker.temporary:
            return WorkerDecision(False, None)
        if self.idle_from_batch_end:
            if worker.poll_timed_out:
                return WorkerDecision(True, None)
            return WorkerDecision(False, worker.now + worker.max_idle_time)
        if worker.now - worker.idle_since > worker.max_idle_time:
            return WorkerDecision(True, None)
        return WorkerDecision(False, worker.now + worker.max_idle_time)


class Lru(ModelCachePolicy):
    """Least recently used first: victims are taken from the least recently inserted-or-used
    end, skipping models that cannot be evicted now, until at least bytes_needed are freed;
    None (and no victim) when the evictable models together hold less."""

    name = "lru"

    def __init__(self):
        self._order: "collections.OrderedDict[int, int]" = collections.OrderedDict()  # model -> bytes

    def on_insert(self, model: int, bytes: int, now: int) -> None:
        self._order[model] = bytes
        self._order.move_to_end(model)

    def on_access(self, model: int, now: int) -> None:
        if model in self._order:
            self._order.move_to_end(model)

    def on_resize(self, model: int, bytes: int) -> None:
        if model in self._order:
            self._order[model] = bytes

    def on_remove(self, model: int) -> None:
        self._order.pop(model, None)

    def choose_victims(self, bytes_needed: int, now: int, evictable: Callable[[int], bool]) -> Optional[List[int]]:
        victims: List[int] = []
        freed = 0
        for model, size in self._order.items():
            if freed >= bytes_needed:
                break
            if evictable(model):
                victims.append(model)
                freed += size
        return victims if freed >= bytes_needed else None
