"""``qconf -sc/-mc/-Mc``: the complex attribute list, shown and changed as a whole.

The qmaster validates the new list against the 2003 complex specification and answers
one line per attribute added, modified or removed.
"""
from __future__ import annotations

from typing import Callable

from clients.qconf_base import QconfError, Session, edit_text, out, put
from clients.qconf_files import FileError, parse_edited_complexes, read_complex_file
from common.resource.complexes import (
    COMPLEX_KIND, COMPLEX_OBJECT, ComplexAttr, ComplexError, complexes_from_rows,
    render_complex_list, rows_of,
)


def complexes(s: Session) -> list[ComplexAttr]:
    try:
        return complexes_from_rows(s.objects(COMPLEX_KIND).get(COMPLEX_OBJECT) or [])
    except ComplexError as exc:
        raise QconfError(str(exc)) from None


def show_complexes(s: Session) -> int:
    """``-sc``: the cell's complex attributes as a table on stdout."""
    out(render_complex_list(complexes(s)))
    return 0


def put_complexes(s: Session, attrs: list[ComplexAttr]) -> int:
    """The whole list to the qmaster, which answers one line per change."""
    return put(s, COMPLEX_KIND, COMPLEX_OBJECT, rows_of(attrs), "modify")


def modify_complexes_from_file(s: Session, path: str) -> int:
    try:
        attrs = read_complex_file(path)
    except FileError as exc:
        raise QconfError("\n".join(exc.lines)) from None
    return put_complexes(s, attrs)


def modify_complexes_in_editor(s: Session) -> int:
    """``-mc``: like Grid Engine, a non-manager is turned away before the editor opens."""
    user = s.client.user.name
    if user not in s.objects("manager"):
        raise QconfError(f'denied: "{user}" must be manager for this operation')
    try:
        attrs = parse_edited_complexes(edit_text(render_complex_list(complexes(s))))
    except FileError as exc:
        raise QconfError("\n".join(exc.lines)) from None
    return put_complexes(s, attrs)



COMPLEX_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-sc": (0, show_complexes), "-mc": (0, modify_complexes_in_editor),
    "-Mc": (1, modify_complexes_from_file),
}
