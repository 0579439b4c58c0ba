"""Each system timed in a process of its own, the processes sampled in turn.

Systems that share a process share its memory allocator. glibc raises its mmap and trim
thresholds after a large array is freed, and from then on every later array of that size comes
from a heap that stays mapped. So how fast a system that allocates runs depended on which systems
ran before it: the naive W2 NumPy took 272 µs in one run and 1.05 ms in the next, with the same
code. Each system here runs in a fresh interpreter that builds it, checks it and times it, as it
would run in a user's program. The parent still takes the samples round robin, one per system
in turn, so background load lands on every system alike.

The protocol is pickles over the worker's stdin and stdout; the worker's own prints go to stderr.
"""

from __future__ import annotations

import gc
import os
import pickle
import subprocess
import sys
from typing import Any, BinaryIO

from .harness import (
    Settings,
    build_report,
    calls_per_sample,
    candidate_group,
    sample,
    warm_allocator,
)

Built = dict[str, Any]  # a worker's first message: harness.build_report's


class Worker:
    """A system ``key`` of candidate group ``group``, built and timed in its own process."""

    def __init__(self, group: str, key: str, settings: Settings) -> None:
        command = [
            sys.executable,
            str(settings.script),
            "--worker",
            group,
            key,
            "--codegen-dir",
            str(settings.work_dir),
            "--repeats",
            str(settings.repeats),
            "--sympy-cap",
            str(settings.sympy_cap_seconds),
        ]
        if settings.smoke:
            command.append("--smoke")
        command += ["--allocator", settings.allocator]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def _request(self, message: tuple[Any, ...]) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        if message:
            pickle.dump(message, self.process.stdin)
            self.process.stdin.flush()
        try:
            return pickle.load(self.process.stdout)
        except EOFError:
            code = self.process.wait()
            raise RuntimeError(f"the worker process exited with code {code}") from None

    def built(self) -> Built:
        """The worker's first message: its outputs and build times, or why it has none."""
        return self._request(())

    def calibrate(self) -> int:
        return self._reply(self._request(("calibrate",)))

    def sample(self, calls: int) -> tuple[float, float, float]:
        return self._reply(self._request(("sample", calls)))

    @staticmethod
    def _reply(reply: tuple[str, Any]) -> Any:
        status, value = reply
        if status != "ok":
            raise RuntimeError(value)
        return value

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                pickle.dump(("quit",), self.process.stdin)  # type: ignore[arg-type]
                self.process.stdin.close()  # type: ignore[union-attr]
            except (BrokenPipeError, OSError):
                pass
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()


def serve(group: str, key: str, settings: Settings) -> int:
    """The worker's side: build the system, report, then answer calibrate and sample requests."""
    replies: BinaryIO = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(
        sys.stderr.fileno(), sys.stdout.fileno()
    )  # a library's prints must not corrupt the pickles
    requests = sys.stdin.buffer
    if settings.allocator == "warmed":
        warm_allocator()
    candidate = next(c for c in candidate_group(group)(settings) if c.key == key)
    report, prepared = build_report(candidate.prepare)

    def send(message: Any) -> None:
        pickle.dump(message, replies)
        replies.flush()

    send(report)
    while True:
        try:
            message = pickle.load(requests)
        except EOFError:
            return 0
        if message[0] == "quit":
            return 0
        try:
            assert prepared is not None and prepared.call is not None, "no system to time"
            if message[0] == "calibrate":
                send(("ok", calls_per_sample(prepared.call, settings)))
            else:
                gc.collect()
                gc.disable()  # as timeit does: a collection inside one sample is noise
                try:
                    send(("ok", sample(prepared.call, message[1])))
                finally:
                    gc.enable()
        except Exception as error:  # reported in the system's row
            send(("error", f"{type(error).__name__}: {error}"[:300]))
