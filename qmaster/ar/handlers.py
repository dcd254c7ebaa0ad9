"""The qmaster's advance reservation requests: ``ar_submit`` (qrsub), ``ar_query``
(qrstat), ``ar_delete`` (qrdel), in Grid Engine 8.1.9's words
(tests/data/reference/ar/).

Permission first, then work: the requester's host must be a submit host (qrsub, qrdel)
or known (qrstat); qrsub and qrdel need a manager or a member of the access list
``arusers``; an AR may be deleted by its owner, a manager or an operator. The work of a
request is bounded by what it names (4096 ids at most, wire.py) and by the ARs that
exist (``max_advance_reservations`` bounds those when set).

Admission asks the placement core (``common.placement.dispatch.ar_admission``) whether
the slots the AR asks for are free for its whole window, given the running jobs' planned
ends and the other ARs; it is refused otherwise (``advance_reservation: no suitable
queues``).
"""
from __future__ import annotations

import fnmatch
from dataclasses import replace
from typing import Any

from common import ar as rules
from common.access import in_userset
from common.mail import valid_address
from common.placement import dispatch
from common.placement.job import PlacementJob, placement_job
from common.placement.inputs import policy_conf
from common.placement.timeline import holds_of
from qmaster.ar.lifecycle import ArClock, end_ar
from qmaster.context import Ctx, RequestError
from qmaster.host_rights import require_known_host, require_submit_host
from qmaster.placement_view import as_placement_job, store_pass_input
from qmaster.submit_checks import _check_pe, _check_queues, _stored_resources

MAX_ARS_REFUSAL = "rejected: only {count} advance reservations are allowed per cluster"
# ARs one user may hold whatever max_advance_reservations says (0 there means no limit in
# 8.1.9): each is kept, spooled and planned around by every pass (docs/security.md)
MAX_USER_ARS = 1000
USER_ARS_REFUSAL = ('denied: user "{user}" already has {count} advance reservations, the '
                    "most one user may have")
VERIFY_OK = "verification: found suitable queue(s)"
VERIFY_FAILED = "verification: no suitable queues"


def clock_of(ctx: Ctx) -> ArClock:
    if ctx.services.ar_clock is None:
        ctx.services.ar_clock = ArClock()
    clock: ArClock = ctx.services.ar_clock
    return clock


def require_ar_user(ctx: Ctx) -> None:
    """8.1.9: ``denied: "sgeuser" must be manager or in userset "arusers"``."""
    user = ctx.user
    if ctx.store.is_manager(user.name):
        return
    pairs = ctx.store.conf["userset"].get(rules.AR_USERS)
    if pairs is None or not in_userset(user.name, [user.group], pairs):
        raise RequestError("denied", rules.NOT_AR_USER.format(user=user.name))


def max_ars(ctx: Ctx) -> int:
    """sge_conf(5) ``max_advance_reservations`` (0 or absent: no limit)."""
    text = ctx.store.conf_value("conf", "global", "max_advance_reservations", "0")
    return int(text) if text.strip().isdigit() else 0


def ar_job(spec: dict[str, Any], owner: str, group: str) -> PlacementJob:
    """The AR's ``-l -pe -q`` as a job, for admission."""
    opts = {k: spec[k] for k in ("hard_resources", "hard_queues", "pe", "pe_ranges")
            if spec.get(k)}
    return placement_job({"job_id": 0, "owner": owner, "group": group, "opts": opts})


def admit(ctx: Ctx, job: PlacementJob, start: float, end: float, interactive: bool = False
          ) -> tuple[list[list[Any]], str | None] | None:
    """Where the AR's slots are guaranteed over [start, end), or None. ``interactive``
    (qrsub -now y): only in queues whose qtype has INTERACTIVE, as qrsub(1) says."""
    # load thresholds speak of now, not of the AR's window: 8.1.9 grants an AR on a
    # host that is in alarm (tests/data/reference/ar/, a loaded 2-core host)
    inp = replace(store_pass_input(ctx.store), overloaded={}, host_loads=None)
    if interactive:
        inp = replace(inp, matcher=_interactive_only(inp.matcher))
    if inp.reserve is None:  # (planning off for -R jobs: ARs are planned all the same,
        # with the configuration's default_duration, DURATION_OFFSET, schedule_interval)
        conf = policy_conf(ctx.store.conf).reserve_conf(ctx.now, ars=True)
        assert conf is not None
        active = [t.to_dict() for t in ctx.store.active_tasks() if t.job_id in ctx.store.jobs]
        jobs = {t["job_id"]: as_placement_job(ctx.store.jobs[t["job_id"]]) for t in active}
        inp = replace(inp, reserve=conf, holds=holds_of(active, jobs, conf))
    return dispatch.ar_admission(job, start, end, inp)


def _interactive_only(matcher: Any) -> Any:
    def allows(job: PlacementJob, qi: Any) -> bool:
        return "INTERACTIVE" in qi.qtype.upper() and (matcher is None or matcher(job, qi))
    return allows


def handle_ar_submit(ctx: Ctx) -> dict[str, Any]:
    user = ctx.user
    require_submit_host(ctx.store, user)
    require_ar_user(ctx)
    spec = dict(ctx.body["ar"])
    try:
        start, end = rules.window(ctx.now, spec.get("start"), spec.get("end"),
                                  spec.get("duration"))
    except rules.WindowError as err:
        raise RequestError("invalid", str(err)) from None
    limit = max_ars(ctx)
    if limit and len(ctx.store.ars) >= limit:
        raise RequestError("max_ars", MAX_ARS_REFUSAL.format(count=limit))
    held = sum(1 for r in ctx.store.ars.values() if r["owner"] == user.name)
    if held >= MAX_USER_ARS:
        raise RequestError("denied", USER_ARS_REFUSAL.format(user=user.name, count=held))
    spec = _checked_requests(ctx, spec)
    job = ar_job(spec, user.name, user.group)
    found = admit(ctx, job, start, end, bool(spec.get("interactive")))
    if ctx.body.get("verify"):
        if found is None:
            raise RequestError("rejected", VERIFY_FAILED)
        return {"verification": VERIFY_OK}
    if found is None:
        raise RequestError("rejected", rules.NO_QUEUES)
    granted, granted_pe = found
    ar_id = ctx.store.allocate_ar_id(ctx.batch)
    record = rules.new_record(ar_id, spec, user.name, user.group, ctx.now, start, end,
                              granted, granted_pe)
    ctx.store.put_ar(ctx.batch, record)
    clock_of(ctx).add(record)
    ctx.services.job_log("advance reservation granted", ar_id=ar_id, owner=user.name)
    return {"ar_id": ar_id}


def _checked_requests(ctx: Ctx, spec: dict[str, Any]) -> dict[str, Any]:
    """The AR's ``-l`` (known resources, stored form), ``-pe`` and ``-q`` (they must
    exist), in qsub's words; -M addresses a mailer can take (common.mail.valid_address)."""
    opts = _stored_resources(ctx.store, {"hard_resources": spec.get("hard_resources") or {}})
    pe = spec.get("pe")
    ranges = [tuple(r) for r in spec.get("pe_ranges") or []] or \
        ([(pe[1], pe[2])] if pe else [])
    if pe and any(low < 1 or high < low for low, high in ranges):
        raise RequestError("rejected", "advance reservation rejected: pe range must be "
                                       "greater than zero and must not run backwards")
    _check_pe(ctx.store, spec.get("pe"))
    _check_queues(ctx.store, list(spec.get("hard_queues") or []))
    for address in spec.get("mail_list") or []:
        if not valid_address(str(address)):
            raise RequestError("rejected", f'advance reservation rejected: invalid mail '
                                           f'address "{str(address)[:100]}" in -M')
    return {**spec, "hard_resources": opts["hard_resources"]}


def _may_see_all(ctx: Ctx) -> bool:
    return ctx.store.is_manager(ctx.user.name) or ctx.store.is_operator(ctx.user.name)


def handle_ar_query(ctx: Ctx) -> dict[str, Any]:
    """qrstat: the ARs named (``ar_ids``; unknown ones listed apart), or those of the
    owners matching ``owners`` (default: the caller's own, as 8.1.9's qrstat)."""
    require_known_host(ctx.store, ctx.user)
    ids = ctx.body.get("ar_ids")
    if ids is not None:
        found = [_as_now(ctx, ctx.store.ars[i]) for i in ids if i in ctx.store.ars]
        return {"ars": found, "unknown": [i for i in ids if i not in ctx.store.ars]}
    owners = ctx.body.get("owners") or [ctx.user.name]
    ars = [_as_now(ctx, r) for _, r in sorted(ctx.store.ars.items())
           if any(fnmatch.fnmatchcase(r["owner"], o) for o in owners)]
    return {"ars": ars, "unknown": []}


def _as_now(ctx: Ctx, record: dict[str, Any]) -> dict[str, Any]:
    """The AR as qrstat shows it now: the state its window gives it (the clock may turn
    the stored one a moment later), ``E``/``W`` and a ``message`` while a granted queue
    instance is disabled, in error or on an unknown host (8.1.9)."""
    problem = None
    if record["state"] not in rules.ENDING_STATES:
        states = {name: s.get("states", "") for name, s in ctx.store.qi_states.items()}
        down = [h for h, host in ctx.store.hosts.items() if not host.alive]
        problem = rules.trouble(record, states, down)
    state = rules.shown_state(record, ctx.now, problem)
    if state == record["state"] and not problem:
        return record
    return {**record, "state": state, **({"message": problem} if problem else {})}


def handle_ar_delete(ctx: Ctx) -> dict[str, Any]:
    """qrdel: one result per AR named, or per AR of the users named."""
    user = ctx.user
    require_submit_host(ctx.store, user)
    require_ar_user(ctx)
    results: list[dict[str, Any]] = []
    for ar_id in ctx.body.get("ar_ids") or []:
        results.append(_delete_one(ctx, ar_id))
    owners = ctx.body.get("owners") or []
    if owners:
        mine = [r for _, r in sorted(ctx.store.ars.items())
                if any(fnmatch.fnmatchcase(r["owner"], o) for o in owners)]
        if not mine:
            results.append({"result": "none_for_users", "users": owners})
        for record in mine:
            results.append(_delete_one(ctx, int(record["ar_id"])))
    return {"results": results}


def _delete_one(ctx: Ctx, ar_id: int) -> dict[str, Any]:
    record = ctx.store.ars.get(ar_id)
    if record is None:
        return {"ar_id": ar_id, "result": "unknown"}
    if record["owner"] != ctx.user.name and not _may_see_all(ctx):
        return {"ar_id": ar_id, "result": "denied"}
    if record["state"] == "d" and not ctx.body.get("force"):
        return {"ar_id": ar_id, "result": "registered"}
    gone = end_ar(ctx, record, "d", by=ctx.user.name,
                  force=bool(ctx.body.get("force")) and _may_see_all(ctx))
    return {"ar_id": ar_id, "result": "deleted" if gone else "registered"}
