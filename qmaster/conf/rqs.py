"""Resource quota sets in the qmaster: ``qconf -Arqs/-arqs/-Mrqs/-mrqs`` arrive as
``conf_put`` of kind ``rqs`` (the set as ``[key, value]`` pairs, common.quota.rqs_format),
are checked as 8.1.9 checks them (the format, the limits against the cell's complex list)
and stored in their printed form. Deleting and listing go through the generic
configuration handlers."""
from __future__ import annotations

from typing import Any

from common.quota.rqs_checks import checked_rule_set
from common.quota.rqs_format import RqsFormatError, rule_set_from_pairs, rule_set_pairs
from common.resource.complexes import cell_complexes
from qmaster.context import Ctx, RequestError

KIND = "rqs"


def put_rule_set(ctx: Ctx, name: str, data: Any, mode: str) -> list[list[str]]:
    """The checked set to store under ``name`` (raises RequestError in 8.1.9's words)."""
    if mode not in ("add", "modify"):
        raise RequestError("malformed", f"cannot {mode} objects of kind \"{KIND}\"")
    if not isinstance(data, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
            for p in data):
        raise RequestError("malformed", "a resource quota set must be a list of "
                                        "[name, value] pairs")
    try:
        rule_set = checked_rule_set(rule_set_from_pairs(data), cell_complexes(ctx.store.conf))
    except RqsFormatError as err:
        raise RequestError("invalid", str(err)) from None
    if rule_set.name != name:
        raise RequestError("invalid", f'denied: resource quota set "{name}" names itself '
                                      f'"{rule_set.name}"')
    exists = name in ctx.store.conf[KIND]
    if mode == "add" and exists:
        raise RequestError("exists", f'resource quota set "{name}" already exists')
    if mode == "modify" and not exists:
        raise RequestError("missing", f'denied: resource quota set "{name}" does not exist')
    return rule_set_pairs(rule_set)
