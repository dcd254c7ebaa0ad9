"""The file forms ``qconf -Aattr/-Mattr/-Dattr/-Rattr obj_nm fname obj_id_list``: the
attributes and values of ``fname``, each applied as ``-aattr/-mattr/-dattr/-rattr`` would
apply it. Pure: the file's text in, ``(attribute, value)`` pairs or the lines to print out.

A file holds ``attribute value`` lines in the object's own format. For resource quota
sets (compared with 8.1.9, tests/data/reference/rqs/): ``limit`` takes a rule as a set
file writes it, of which the ``to`` list is the value (``limit to compiler_lic=5``;
filters are read and left aside); a value that is no rule is refused as 8.1.9's set
reader refuses it (``error: unknown attribute name "compiler_lic"``, ``error: line 1
should begin with an attribute name``, ``error: error reading file: "f"``), and qconf then
calls the file an invalid option argument. For the other objects the file is read as a
partial object file of the kind (``common.objects_conf``).
"""
from __future__ import annotations

from common.conffile import ConfError, logical_lines
from common.objects_conf import parse_object
from common.quota.rqs_format import RqsFormatError, parse_rule

RQS_OBJECT = "resource_quota"
RQS_ATTRIBUTES = ("name", "description", "enabled", "limit")
# qconf's object names -> objects_conf kinds
OBJECT_KINDS = {"queue": "queue", "exechost": "exechost", "hostgroup": "hostgroup",
                "pe": "pe"}


class AttrFileError(Exception):
    """A file qconf refuses: the lines to print on stderr (exit status 1)."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def attribute_pairs(obj_nm: str, text: str, path: str) -> list[tuple[str, str]]:
    """The ``(attribute, value)`` pairs the file gives (resource quota sets: in file
    order; other objects: in the kind's attribute order)."""
    try:
        if obj_nm == RQS_OBJECT:
            return _rule_set_attributes(text, path)
        if obj_nm not in OBJECT_KINDS:
            return []  # qconf refuses the object name itself (attr.store_kind)
        return [(k, v) for k, v in parse_object(OBJECT_KINDS[obj_nm], text,
                                                require_all=False)]
    except ConfError as exc:
        raise AttrFileError([f"error: {exc.message}", f'error: error reading file: "{path}"',
                             *_invalid(path)]) from None


def _rule_set_attributes(text: str, path: str) -> list[tuple[str, str]]:
    pairs = []
    for lineno, line in logical_lines(text):
        key, value = (line.split(None, 1) + [""])[:2]
        value = value.strip()
        try:
            if key not in RQS_ATTRIBUTES:
                raise RqsFormatError(f'unknown attribute name "{key}"')
            if key == "limit":
                rule = parse_rule(value)
                value = ",".join(f"{limit.name}={limit.value}" for limit in rule.limits)
        except RqsFormatError as exc:
            raise AttrFileError([f"error: {exc}",
                                 f"error: line {lineno} should begin with an attribute name",
                                 f'error: error reading file: "{path}"',
                                 *_invalid(path)]) from None
        pairs.append((key, value))
    return pairs


def _invalid(path: str) -> list[str]:
    return [f'error: invalid option argument "{path}"', "Usage: qconf -help"]
