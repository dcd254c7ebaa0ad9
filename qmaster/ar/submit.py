"""A job submitted into an advance reservation (qsub/qrsh ``-ar id``), checked at
submission as 8.1.9 checks it (tests/data/reference/ar/qsub-ar-*):

- the AR must exist and not be ending: ``the advance reservation id 999 is invalid``;
- the submitter must be allowed by the AR's ``-u`` list (its owner always is), and the
  job must fit in what the AR was granted (its slots, its PE, its queues):
  otherwise ``error: no suitable queues``, as 8.1.9's implied ``-w e`` says it.
"""
from __future__ import annotations

import fnmatch
from typing import Any

from common.ar import ENDING_STATES, may_use, slots
from common.objects_conf.userset import entries_of
from qmaster.context import RequestError
from qmaster.store import Store
from qmaster.submit_checks import NO_SUITABLE_QUEUES


def invalid(ar_id: int) -> str:
    return f"the advance reservation id {ar_id} is invalid"


def check_ar_job(store: Store, opts: dict[str, Any], user: str) -> None:
    """Raise RequestError for a job that names an AR it cannot run in."""
    ar_id = opts.get("ar_id")
    if not ar_id:
        return
    record = store.ars.get(int(ar_id))
    if record is None or record["state"] in ENDING_STATES:
        raise RequestError("rejected", invalid(int(ar_id)))
    usersets = {name: entries_of(pairs) for name, pairs in store.conf["userset"].items()
                if any(a == f"@{name}" for a in record.get("acl") or [])}
    if not may_use(record, user, usersets) or not fits(record, opts):
        raise RequestError("rejected", NO_SUITABLE_QUEUES)


def as_stored(opts: dict[str, Any]) -> dict[str, Any]:
    """A job of an AR, checked, as 8.1.9 keeps it: verification level ``w`` when it gave
    none (``qstat -j`` shows ``verify_suitable_queues: 2``,
    tests/data/reference/ar/qstat-j-arjob.out). Set after the submission's checks: the
    AR check above is its verification, not the empty cluster's."""
    if opts.get("ar_id") and (opts.get("verify_mode") or "n") == "n":
        return {**opts, "verify_mode": "w"}
    return opts


def fits(record: dict[str, Any], opts: dict[str, Any]) -> bool:
    """Whether the job's slots, PE and queues are within what the AR was granted."""
    pe = opts.get("pe")
    wanted = int(pe[1]) if pe else 1
    if wanted > slots(record):
        return False
    if pe and not (record.get("granted_pe") and
                   fnmatch.fnmatchcase(str(record["granted_pe"]), str(pe[0]))):
        return False
    queues = opts.get("hard_queues") or []
    if queues:
        granted = {str(g[0]) for g in record["granted"]}
        hosts = {str(g[1]) for g in record["granted"]}
        if not any(fnmatch.fnmatchcase(q, ref.partition("@")[0] or "*") and
                   (not ref.partition("@")[2] or ref.partition("@")[2].startswith("@") or
                    any(fnmatch.fnmatchcase(h, ref.partition("@")[2]) for h in hosts))
                   for ref in queues for q in granted):
            return False
    return True
