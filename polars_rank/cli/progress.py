"""Stage and elapsed-time display on stderr for long inputs (``reading run… 3.2 s``)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

#: Inputs with at least this many (estimated) rows show their stages when stderr is a terminal.
LARGE_INPUT_ROWS = 1_000_000


class Progress:
    """Prints ``what… N.N s`` for each stage when enabled; silent otherwise."""

    def __init__(self, enabled: bool = False, stream: TextIO | None = None) -> None:
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr

    @classmethod
    def for_inputs(cls, mode: str, rows: int) -> Progress:
        """``mode`` ``always``/``never``/``auto``; auto shows stages when stderr is a terminal
        and the inputs hold at least :data:`LARGE_INPUT_ROWS` rows."""
        if mode == "always":
            return cls(True)
        if mode == "never":
            return cls(False)
        return cls(rows >= LARGE_INPUT_ROWS and _stderr_is_terminal())

    @contextmanager
    def stage(self, what: str) -> Iterator[None]:
        """Time one stage; the line is finished with the elapsed seconds (or ``failed``)."""
        if not self.enabled:
            yield
            return
        self.stream.write(f"{what}… ")
        self.stream.flush()
        start = time.perf_counter()
        try:
            yield
        except BaseException:
            self.stream.write("failed\n")
            raise
        self.stream.write(f"{time.perf_counter() - start:.1f} s\n")
        self.stream.flush()


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
