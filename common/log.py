"""structlog set-up shared by the daemons: one line per event, key=value, to a file or stderr."""
from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any, TextIO

import structlog


def configure(daemon: str, log_file: Path | None = None, level: str = "info") -> Any:
    stream: TextIO = sys.stderr
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        stream = log_file.open("a", buffering=1)
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.KeyValueRenderer(key_order=["timestamp", "level", "event"]),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            getattr(logging, level.upper(), logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(stream),
        cache_logger_on_first_use=True,
    )
    return structlog.get_logger().bind(daemon=daemon)
