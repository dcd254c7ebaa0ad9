"""The qmaster's checkpointing environment (checkpoint(5)) rules: what an object must
satisfy and where queues name them.

Texts are Grid Engine 8.1.9's (tests/data/reference/ckpt/):

- a bad ``when``: ``Invalid "when" attribute for ckpt "c3"``;
- a queue's ``ckpt_list`` naming an unknown one (its default or a ``[host=...]`` value):
  ``Ckpt "nosuch" does not exist``;
- deleting one a queue still names: ``denied: Ckpt "c1" is still referenced in queue
  "ck.q".``

The confirmations and the other refusals are ``qmaster.conf.requests``'s, in its words
for every kind (``checkpoint interface "c1" already exists``, ``denied: checkpointing
environment "c1" does not exist``).
"""
from __future__ import annotations

from typing import Mapping

from common.conf_values import get
from common.conffile import ConfError
from common.objects_conf.ckpt import canonical, ckpt_problem
from common.objects_conf.queue import parse_host_overrides
from qmaster.context import RequestError

KIND = "ckpt"
Conf = Mapping[str, Mapping[str, list[list[str]]]]


def check_ckpt(pairs: list[list[str]]) -> list[list[str]]:
    """A checkpointing environment being added or changed, as it is to be stored."""
    problem = ckpt_problem(pairs)
    if problem:
        raise RequestError("invalid", problem)
    return canonical(pairs)


def queue_ckpts(pairs: list[list[str]]) -> list[str]:
    """Every checkpointing environment a queue's ``ckpt_list`` names, ``[host=...]``
    values included (``NONE`` names none)."""
    text = get(pairs, "ckpt_list", "NONE")
    try:
        default, overrides = parse_host_overrides(text)
    except ConfError:
        default, overrides = text, {}
    names = [n for value in (default, *overrides.values())
             for n in value.replace(",", " ").split()]
    return list(dict.fromkeys(n for n in names if n.upper() != "NONE"))


def check_ckpts_exist(conf: Conf, kind: str, pairs: list[list[str]]) -> None:
    """A queue may name only existing checkpointing environments."""
    if kind != "queue":
        return
    known = conf.get(KIND, {})
    missing = next((n for n in queue_ckpts(pairs) if n not in known), None)
    if missing is not None:
        raise RequestError("invalid", f'Ckpt "{missing}" does not exist')


def check_unreferenced(conf: Conf, name: str) -> None:
    """Refuse deleting a checkpointing environment that a queue names."""
    for queue, pairs in sorted(conf.get("queue", {}).items()):
        if name in queue_ckpts(pairs):
            raise RequestError("referenced", f'denied: Ckpt "{name}" is still '
                                             f'referenced in queue "{queue}".')
