"""``qconf -sc/-mc/-Mc``: the complex attribute list, shown and changed as a whole;
``-scel/-sce/-ace/-Ace/-mce/-Mce/-dce``: one attribute at a time.

The qmaster validates the new list against the 2003 complex specification and answers
one line per attribute added, modified or removed. Single attributes travel as their own
object (kind "complex", named by the attribute) so that the qmaster applies the change to
the list it holds: two administrators adding attributes at once lose neither.
``-ac/-Ac/-dc`` (the complex options of Grid Engine before 6.0) are accepted as
``-ace/-Ace/-dce``.
"""
from __future__ import annotations


from clients.qconf.base import QconfError, Session, edit_text, err, out, put, remove
from clients.qconf.files import FileError, parse_edited_complexes, read_complex_file
from common.resource.centry import centry_template, find_entry, parse_centry, render_centry
from common.resource.complexes import (
    COMPLEX_KIND, COMPLEX_OBJECT, ComplexAttr, ComplexError, complexes_from_rows,
    render_complex_list, rows_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable


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
    _require_manager(s)
    try:
        attrs = parse_edited_complexes(edit_text(render_complex_list(complexes(s))))
    except FileError as exc:
        raise QconfError("\n".join(exc.lines)) from None
    return put_complexes(s, attrs)


# ---- one attribute at a time ------------------------------------------------------------
def show_entry_names(s: Session) -> int:
    """``-scel``: the attribute names, one per line."""
    out("\n".join(sorted(a.name for a in complexes(s))))
    return 0


def show_entries(s: Session, names: str) -> int:
    """``-sce name[,name..]``"""
    attrs, rc = complexes(s), 0
    for name in names.split(","):
        try:
            out(render_centry(find_entry(attrs, name)))
        except ComplexError as exc:
            err(str(exc))
            rc = 1
    return rc


def _require_manager(s: Session) -> None:
    """Like ``-mc``, a non-manager is turned away before the editor opens."""
    user = s.client.user.name
    if user not in s.objects("manager"):
        raise QconfError(f'denied: "{user}" must be manager for this operation')


def _edited(attr: ComplexAttr) -> ComplexAttr:
    try:
        return parse_centry(edit_text(render_centry(attr)))
    except ComplexError as exc:
        raise QconfError(f"error: {exc}\nerror reading in file") from None


def _read_entry(path: str) -> ComplexAttr:
    try:
        with open(path) as fh:
            return parse_centry(fh.read())
    except OSError as exc:
        raise QconfError(f'error: error opening file "{path}" for reading: '
                         f"{exc.strerror}") from None
    except ComplexError as exc:
        raise QconfError(f'error: {exc}\nerror: error reading file: "{path}"') from None


def _put_entry(s: Session, attr: ComplexAttr, mode: str) -> int:
    return put(s, COMPLEX_KIND, attr.name, rows_of([attr]), mode)


def add_entry_in_editor(s: Session, name: str) -> int:
    _require_manager(s)
    return _put_entry(s, _edited(centry_template(name)), "add")


def modify_entry_in_editor(s: Session, name: str) -> int:
    _require_manager(s)
    try:
        attr = find_entry(complexes(s), name)
    except ComplexError as exc:
        raise QconfError(str(exc)) from None
    return _put_entry(s, _edited(attr), "modify")


def add_entry_from_file(s: Session, path: str) -> int:
    return _put_entry(s, _read_entry(path), "add")


def modify_entry_from_file(s: Session, path: str) -> int:
    return _put_entry(s, _read_entry(path), "modify")


def delete_entries(s: Session, names: str) -> int:
    return max(remove(s, COMPLEX_KIND, name) for name in names.split(","))


COMPLEX_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-sc": (0, show_complexes), "-mc": (0, modify_complexes_in_editor),
    "-Mc": (1, modify_complexes_from_file),
    "-scel": (0, show_entry_names), "-sce": (1, show_entries),
    "-ace": (1, add_entry_in_editor), "-Ace": (1, add_entry_from_file),
    "-mce": (1, modify_entry_in_editor), "-Mce": (1, modify_entry_from_file),
    "-dce": (1, delete_entries),
    "-ac": (1, add_entry_in_editor), "-Ac": (1, add_entry_from_file),
    "-dc": (1, delete_entries),
}
