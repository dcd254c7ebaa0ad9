"""sge_qstat(5): the files of default qstat options (``$SGE_ROOT/$SGE_CELL/common/sge_qstat``
and ``~/.sge_qstat``), read as qstat(1) reads them.

A file holds any number of lines; blank lines and lines with ``#`` in the first column
are skipped; every other line holds qstat options, more than one per line, separated by
blanks or tabs (8.1.9 splits the file on blanks, newlines and tabs: no quoting). Both
files are read, the cell's first; an option the command line gives replaces every
occurrence of the same option in the files (8.1.9's qstat.c removes those "dups" before
it appends the command line). ``words`` is the one parser of such a file; ``merged`` is
the rule, given the switches of each word list (the caller's tokenizer). Pure.
"""
from __future__ import annotations

from typing import Callable, Sequence

Tokens = list[tuple[str, list[str]]]


def words(text: str) -> list[str]:
    """The option words of one file."""
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        out.extend(line.split())
    return out


def merged(files: Sequence[str], argv: list[str],
           tokenize: Callable[[list[str]], Tokens]) -> Tokens:
    """The (switch, arguments) qstat runs with: the files' options (in the order of
    ``files``, each a file's text) but those the command line gives, then the command
    line's. ``tokenize`` is qstat's own tokenizer (its errors are the files' too)."""
    from_files = tokenize([word for text in files for word in words(text)])
    given = tokenize(argv)
    switches = {switch for switch, _ in given}
    return [token for token in from_files if token[0] not in switches] + given
