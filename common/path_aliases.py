"""sge_aliases(5): the path aliases of the cell (``$SGE_ROOT/$SGE_CELL/common/sge_aliases``)
and of the user (``~/.sge_aliases``), and how they map a path.

A file's lines other than blank ones and those with ``#`` in the first column hold four
words separated by blanks or tabs: source path, submit host, execution host,
replacement (a host ``*`` matches any). A line with fewer words makes the file
unreadable, in 8.1.9's words (``invalid syntax of path alias file "F"``). Repeated
slashes in the paths are folded to one, as 8.1.9 does.

qsub reads the cell's file, then the user's as if appended to it, and keeps the aliases
whose submit host is ``*`` or its own host; ``SGE_O_WORKDIR`` is mapped with the submit
host as the executing one, and a job with ``-cwd``/``-wd`` carries the aliases, which map
its working directory for the host it runs on (``map_path``: each alias in turn whose
source is the leading part of the path so far and whose execution host matches replaces
that part; later aliases see the replaced path). Pure.
"""
from __future__ import annotations

import re
from typing import NamedTuple, Sequence

CELL_FILE = ("common", "sge_aliases")
USER_FILE = ".sge_aliases"
ANY_HOST = "*"


class PathAlias(NamedTuple):
    source: str
    submit_host: str
    exec_host: str
    replacement: str


class AliasFileError(ValueError):
    """A file that is not sge_aliases(5) (the message is 8.1.9's)."""


def _folded(path: str) -> str:
    return re.sub("/{2,}", "/", path)


def parse(text: str, file_name: str) -> list[PathAlias]:
    """The aliases of one file, in its order."""
    aliases = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        words = line.split()
        if not words:
            continue
        if len(words) < 4:
            raise AliasFileError(f'invalid syntax of path alias file "{file_name}"')
        source, submit_host, exec_host, replacement = words[:4]
        aliases.append(PathAlias(_folded(source), submit_host, exec_host,
                                 _folded(replacement)))
    return aliases


def same_host(pattern: str, host: str) -> bool:
    """Whether an alias's host entry names ``host``: ``*``, the same name without case,
    or a short name against a fully qualified one."""
    if pattern == ANY_HOST:
        return True
    a, b = pattern.lower(), host.lower()
    if a == b:
        return True
    return ("." not in a or "." not in b) and a.split(".", 1)[0] == b.split(".", 1)[0]


def for_submit_host(aliases: Sequence[PathAlias], host: str) -> list[PathAlias]:
    """The aliases a submission from ``host`` keeps."""
    return [alias for alias in aliases if same_host(alias.submit_host, host)]


def map_path(aliases: Sequence[Sequence[str]], path: str, host: str) -> str:
    """``path`` as ``host`` sees it. ``aliases``: PathAlias or the (source, submit host,
    execution host, replacement) lists a job carries."""
    for source, _, exec_host, replacement in aliases:
        if path.startswith(source) and same_host(exec_host, host):
            path = replacement + path[len(source):]
    return path
