"""``qconf`` options for resource quota sets: ``-srqsl``, ``-srqs``, ``-Arqs``, ``-arqs``,
``-Mrqs``, ``-mrqs``, ``-drqs``, with 8.1.9's messages and streams
(tests/data/reference/rqs/README.md, section 3): a file is read and checked here
(common.quota.rqs_format), and again by the qmaster, which also checks the limits against
the complex list and words the confirmations.

Deliberate differences: ``-Mrqs file`` and ``-mrqs`` without a set name (8.1.9 replaces
the whole list) are refused, since that would take several requests of which some could
fail; every set of a file is answered, not only the first.
"""
from __future__ import annotations

from typing import Callable

from clients.api import ClientError
from clients.qconf.base import QconfError, Session, edit_text, err, out
from common.quota.rqs_format import (RqsFormatError, RuleSet, format_rule_sets,
                                     parse_rule_sets, rule_set_from_pairs, rule_set_pairs)

KIND = "rqs"
NO_SETS = "No resource quota set found"
NO_LIST = "no resource quota set list defined"
TEMPLATE = RuleSet(name="template")  # printed with "limit to slots=0" below
REPLACE_ALL = ("error: replacing every resource quota set at once is not supported; name "
               "the sets to modify")


def _stored(s: Session) -> dict[str, RuleSet]:
    return {name: rule_set_from_pairs(pairs) for name, pairs in s.objects(KIND).items()}


def _parse(text: str) -> list[RuleSet]:
    try:
        sets = parse_rule_sets(text)
    except RqsFormatError as exc:
        raise QconfError(str(exc)) from None
    if not sets:
        raise QconfError("error: no resource quota set in the input")
    return sets


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError as exc:
        raise QconfError(f'error opening file "{path}" for reading: {exc.strerror}') from None


def _send(s: Session, rule_set: RuleSet, mode: str) -> int:
    """One set to the qmaster; 8.1.9 prints an addition on stdout, a change on stderr."""
    try:
        reply = s.client.conf_put(KIND, rule_set.name, rule_set_pairs(rule_set), mode)
    except ClientError as exc:
        err(exc.message)
        return 1
    (out if mode == "add" else err)(reply["message"])
    return 0


def show_list(s: Session) -> int:
    names = sorted(s.objects(KIND), key=lambda n: n.encode())
    if not names:
        raise QconfError(NO_LIST)
    out("\n".join(names))
    return 0


def show(s: Session, names: str | None = None) -> int:
    stored = _stored(s)
    wanted = set(names.split(",")) if names else None
    chosen = [rs for name, rs in stored.items() if wanted is None or name in wanted]
    if not chosen:
        raise QconfError(NO_SETS)
    out(format_rule_sets(chosen).rstrip("\n"))
    return 0


def add_from_file(s: Session, path: str) -> int:
    return max(_send(s, rs, "add") for rs in _parse(_read(path)))


def add_in_editor(s: Session, name: str | None = None) -> int:
    text = format_rule_sets([TEMPLATE if name is None else RuleSet(name=name)])
    text = text.replace("   enabled      FALSE\n", "   enabled      FALSE\n"
                                                  "   limit        to slots=0\n")
    edited = edit_text(text)
    if edited == text:
        raise QconfError("file unchanged")
    return max(_send(s, rs, "add") for rs in _parse(edited))


def modify_from_file(s: Session, path: str, names: str | None = None) -> int:
    if not names:
        raise QconfError(REPLACE_ALL)
    sets = {rs.name: rs for rs in _parse(_read(path))}
    rc = 0
    for name in names.split(","):
        if name not in sets:
            err(f'resource quota set "{name}" not found in file "{path}"')
            rc = 1
            continue
        rc = max(rc, _send(s, sets[name], "modify"))
    return rc


def modify_in_editor(s: Session, names: str | None = None) -> int:
    if not names:
        raise QconfError(REPLACE_ALL)
    stored = _stored(s)
    chosen = [stored[n] for n in names.split(",") if n in stored]
    text = format_rule_sets(chosen) if chosen else "\n"
    edited = edit_text(text)
    if edited == text:
        raise QconfError("file unchanged")
    return max(_send(s, rs, "modify") for rs in _parse(edited))


def delete(s: Session, names: str) -> int:
    rc = 0
    for name in names.split(","):
        try:
            reply = s.client.conf_del(KIND, name)
        except ClientError as exc:
            err(exc.message)
            rc = 1
            continue
        err(reply["message"])
    return rc


RQS_OPTIONS: dict[str, tuple[int, Callable[..., int]]] = {
    "-srqsl": (0, show_list), "-srqs": (-1, show),
    "-Arqs": (1, add_from_file), "-arqs": (-1, add_in_editor),
    "-Mrqs": (-2, modify_from_file), "-mrqs": (-1, modify_in_editor),
    "-drqs": (1, delete),
}
