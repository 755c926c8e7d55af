"""Progress display for long calls from Python: shown only when someone is
watching (stderr is a terminal, or a Jupyter kernel runs the code) and only
once the call has run for `DELAY` seconds, so scripts, pipes, logs and
quick calls stay quiet. ``ROUTELAB_PROGRESS=0`` (or ``1``) turns it off (on)."""

from __future__ import annotations

import os
import sys
import threading
import time
from types import TracebackType

DELAY = 2.0  # seconds a call runs before its progress is shown


def watched() -> bool:
    """Whether a person is likely to see progress: a terminal or a notebook."""
    forced = os.environ.get("ROUTELAB_PROGRESS", "").strip().lower()
    if forced in ("0", "off", "false", "no"):
        return False
    if forced in ("1", "on", "true", "yes"):
        return True
    shell = sys.modules.get("IPython")
    if shell is not None:
        ip = shell.get_ipython()  # type: ignore[attr-defined]
        if ip is not None and type(ip).__name__ == "ZMQInteractiveShell":
            return True
    stream = sys.stderr
    return bool(getattr(stream, "isatty", None) and stream.isatty())


class Progress:
    """A bar of ``total`` steps (or, with ``total=None``, a spinner with the
    elapsed time) for one long call. ``show``: True always (at once), False
    never, None when `watched` and after `DELAY` seconds."""

    def __init__(self, description: str, total: int | None = None, show: bool | None = None):
        self.description = description
        self.total = total
        self.done = 0
        self._show = show
        self._bar = None
        self._task = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._closed = False

    def __enter__(self) -> Progress:
        if self._show is True:
            self._start()
        elif self._show is None and watched():
            self._timer = threading.Timer(DELAY, self._start)
            self._timer.daemon = True
            self._timer.start()
        self._t0 = time.perf_counter()
        return self

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import Progress as RichProgress

        with self._lock:
            if self._closed or self._bar is not None:
                return
            columns = [SpinnerColumn(), TextColumn("{task.description}")]
            if self.total is not None:
                columns += [BarColumn(), MofNCompleteColumn()]
            # On stderr, so that output piped from stdout stays clean.
            console = Console(file=sys.stderr)
            self._bar = RichProgress(*columns, TimeElapsedColumn(), console=console, transient=True)
            self._bar.start()
            self._task = self._bar.add_task(self.description, total=self.total, completed=self.done)

    @property
    def shown(self) -> bool:
        return self._bar is not None

    def advance(self, steps: int = 1) -> None:
        with self._lock:
            self.done += steps
            if self._bar is not None:
                self._bar.update(self._task, completed=self.done)

    def stage(self, description: str) -> None:
        """Completes the step under way and names the next one."""
        self.advance()
        with self._lock:
            self.description = description
            if self._bar is not None:
                self._bar.update(self._task, description=description)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            if self._bar is not None:
                self._bar.stop()
