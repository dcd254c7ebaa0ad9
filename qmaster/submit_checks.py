"""Checks a submission must pass before the qmaster accepts it, in Grid Engine's words.

``check_submission`` refuses what could never be valid (a user the global configuration's
``user_lists``/``xuser_lists`` keep out, unknown resources, malformed values, unknown
parallel environments, a project the job may not have, a deadline (``-dl``) from a user
outside ``deadlineusers``, a positive priority from a non-operator) and answers ``-w e`` /
``-w w`` / ``-w v`` (could an empty cluster run the job) and ``-w p`` (could it run now).
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any

from common import task_ranges
from common.access import user_allowed
from common.jobstate import State
from common.mail import valid_address
from common.objects_conf.ckpt import effective_when, unsupported
from common.cluster import attr, queue_instances
from common.model import UserInfo
from common.resource.complexes import ComplexError, cell_complexes, requests_as_stored
from common.objects_conf.userset import DEADLINE_USERS, entries_of
from qmaster.context import RequestError
from qmaster.conf.project import check_job_project
from qmaster.store import Store
from common.placement.dispatch import PassStats, can_run, dispatch_pass, eligible, queue_matches
from common.placement.explain import pending_reasons, with_cap_reasons
from common.placement.job import PlacementJob, placement_job
from common.placement.pass_conf import Access, host_group_members
from common.placement.reserved import reservation_reasons
from common.placement.timeline import Reservation
from qmaster.placement_view import as_placement_job, store_caps, store_pass_input

NO_SUITABLE_QUEUES = "error: no suitable queues"
VERIFY_OK = "verification: found suitable queue(s)"
VERIFY_FAILED = "verification: no suitable queues"
NOT_YET_TIME = "execution time not reached"  # 8.1.9 qstat -j of a job before its -a time
WARN_NO_QUEUES = "warning: no suitable queues"


@dataclass
class Verdict:
    """What the submitter is told about an accepted job. ``verification``: the ``-w v``
    / ``-w p`` answer (nothing is submitted). ``notes``: lines printed before "Your job
    ... has been submitted"; ``unable``: Grid Engine answers them as an error ("Unable to
    run job:", exit status 1) although the job is in, as it does for a user no queue
    admits."""

    verification: str = ""
    notes: list[str] = field(default_factory=list)
    unable: bool = False
    opts: dict[str, Any] = field(default_factory=dict)  # the job's options as stored


@dataclass(frozen=True)
class Submitter:
    """Who submits, checked once per request (:func:`check_submitter`): ``notes`` are
    what every job of the request is told about the submitter."""

    user: UserInfo
    notes: tuple[str, ...] = ()


def check_submitter(store: Store, user: UserInfo) -> Submitter:
    """Refuse a user the global configuration keeps out; note one no queue admits."""
    _check_cluster_access(store, user)
    if _admitted_by_some_queue(store, user):
        return Submitter(user)
    return Submitter(user, (f"warning: {user.name}'s job is not allowed to run in any "
                            "queue",))


def check_submission(store: Store, opts: dict[str, Any], submitter: Submitter | None, *,
                     operator: bool) -> Verdict:
    """Raise RequestError for a job that must be refused; else what to tell the user.

    ``-w v`` refusals carry the reasons, one line per queue instance as the scheduler
    words them, for the job number the job would get (Grid Engine spends one on it).
    ``submitter`` None: a job already accepted, changed by qalter (no verification)."""
    verdict = Verdict()
    if submitter is not None and submitter.notes:
        verdict.notes.extend(submitter.notes)
        verdict.unable = True
    opts = verdict.opts = _stored_resources(store, opts)
    _check_job_limits(opts)
    _check_mail(opts)
    _check_pe(store, opts.get("pe"))
    _check_checkpointing(store, opts)
    if submitter is not None and opts.get("checkpoint_name") and \
            not opts.get("checkpoint_occasion"):  # 8.1.9 keeps the environment's when
        opts["checkpoint_occasion"] = effective_when(
            store.conf["ckpt"][opts["checkpoint_name"]], None) or None  # (as qstat -j shows)
    if submitter is not None:
        check_job_project(store.conf, submitter.user.name, submitter.user.group, opts)
    if submitter is not None and opts.get("deadline") and \
            not is_deadline_user(store.conf, submitter.user.name):
        raise RequestError("rejected", f'job rejected: the user "{submitter.user.name}" is '
                                       "not a deadline initiation user")
    if int(opts.get("priority") or 0) > 0 and not operator:
        raise RequestError("denied", "job rejected: positive submission priority requires "
                                     "operator privileges")
    mode = opts.get("verify_mode") or "n"
    if mode not in ("e", "v", "w", "p") or submitter is None:
        return verdict
    _check_queues(store, list(opts.get("hard_queues") or []))
    return _verdict(store, opts, mode, submitter.user, verdict)


def is_deadline_user(conf: Any, user: str) -> bool:
    """May ``user`` give a job a deadline (``-dl``)? Only members of the access list
    ``deadlineusers`` (by user name, as 8.1.9 looks)."""
    stored = (conf.get("userset") or {}).get(DEADLINE_USERS)
    return stored is not None and user in entries_of(stored)


def _admitted_by_some_queue(store: Store, user: UserInfo) -> bool:
    """Does some cluster queue's user_lists/xuser_lists (on some host) admit the user?"""
    access = Access(store.conf)
    if not access.restricted:
        return True
    instances = queue_instances(store.conf, store.hosts)
    return any(access.queue_lists_allow(user.name, user.group, qi.queue, qi.host)
               for qi in instances)


def _check_cluster_access(store: Store, user: UserInfo) -> None:
    """sge_conf(5) user_lists/xuser_lists of the global configuration: who may submit."""
    global_conf = store.conf["conf"].get("global") or []
    allowed = user_allowed(user.name, [user.group] if user.group else [],
                           attr(global_conf, "user_lists", "NONE"),
                           attr(global_conf, "xuser_lists", "NONE"),
                           store.conf.get("userset") or {})
    if not allowed:
        raise RequestError("denied", f"job rejected: {user.name}@{user.host} is not "
                                     "allowed to submit jobs")


def verify_job(store: Store, opts: dict[str, Any], mode: str, user: UserInfo, job_id: int
               ) -> Verdict:
    """``qalter -w e/w/v/p``: the job ``job_id`` of ``user`` as it would become (``opts``,
    as stored) verified as qsub -w verifies a new one; the ``-w v`` reasons name it."""
    _check_queues(store, list(opts.get("hard_queues") or []))
    return _verdict(store, opts, mode, user, Verdict(opts=opts), job_id)


def _verdict(store: Store, opts: dict[str, Any], mode: str, user: UserInfo,
             verdict: Verdict, job_id: int | None = None) -> Verdict:
    """``-w e/w/v``: could an empty cluster run the job; ``-w p``: could it run now.
    ``job_id``: the job's number in the reasons (a new job's: the next one)."""
    inp = store_pass_input(store, occupied=mode == "p")
    job = placement_job({"job_id": 0, "opts": opts, "owner": user.name, "group": user.group})
    if can_run(job, inp):
        if mode in ("v", "p"):
            verdict.verification = VERIFY_OK
        return verdict
    if mode == "w":
        verdict.notes.append(WARN_NO_QUEUES)
        return verdict
    if mode == "e":
        raise RequestError("rejected", "\n".join(verdict.notes + [NO_SUITABLE_QUEUES]))
    reasons = [f"Job {store.next_job_id if job_id is None else job_id} {line}"
               for line in pending_reasons(job, inp, verify=True)]
    raise RequestError("rejected", "\n".join(verdict.notes + reasons + [VERIFY_FAILED]))


def _stored_resources(store: Store, opts: dict[str, Any]) -> dict[str, Any]:
    """``opts`` with its ``-l`` lists as Grid Engine keeps them (full names, time values
    in seconds); every name must be in the cell's complex list, its value of its type."""
    attrs = cell_complexes(store.conf)
    try:
        return {**opts,
                "hard_resources": requests_as_stored(opts.get("hard_resources") or {}, attrs),
                "soft_resources": requests_as_stored(opts.get("soft_resources") or {}, attrs,
                                                     soft=True)}
    except ComplexError as err:
        raise RequestError("rejected", str(err)) from None


def _check_job_limits(opts: dict[str, Any]) -> None:
    """What 8.1.9's qmaster refuses of a job's shape, in its words."""
    if opts.get("task_concurrency") and not opts.get("array"):
        raise RequestError("rejected", 'invalid "task concurrency" value in job request')


def _check_mail(opts: dict[str, Any]) -> None:
    """Every -M address must be one the mailer can take as its last argument
    (common.mail.valid_address): one starting with "-" would be read as an option of
    the mailer, which runs as the qmaster's user (docs/security.md)."""
    for address in opts.get("mail_list") or []:
        if not valid_address(str(address)):
            raise RequestError("rejected", f'job rejected: invalid mail address '
                                           f'"{str(address)[:100]}" in -M')


def _check_pe(store: Store, pe: Any) -> None:
    if not pe:
        return
    name = str(pe[0])
    if not any(fnmatch.fnmatchcase(existing, name) for existing in store.conf["pe"]):
        raise RequestError("rejected", "job rejected: the requested parallel environment "
                                       f"\"{name}\" does not exist")


CKPT_UNSUPPORTED = ('job rejected: checkpointing environment "{}": {} is not supported by '
                    "this version")


def _check_checkpointing(store: Store, opts: dict[str, Any]) -> None:
    """``-ckpt`` must name a checkpointing environment (8.1.9's words); ``-c`` other than
    ``n`` needs one (8.1.9: ``checkpointing denied``). An environment that needs what this
    version does not carry out (``objects_conf.ckpt.unsupported``) is refused rather than
    run without it (docs/compatibility.md)."""
    name = opts.get("checkpoint_name")
    occasion = opts.get("checkpoint_occasion")
    if not name:
        if occasion and occasion != "n":
            raise RequestError("rejected", "checkpointing denied")
        return
    pairs = store.conf.get("ckpt", {}).get(name)
    if pairs is None:
        raise RequestError("rejected", "job rejected: the requested checkpointing "
                                       f'environment "{name}" does not exist')
    missing = unsupported(pairs, occasion)
    if missing:
        raise RequestError("rejected", CKPT_UNSUPPORTED.format(name, missing))


def _check_queues(store: Store, queues: list[str]) -> None:
    """Each ``-q`` entry must name a cluster queue, or a queue instance or queue domain
    that exists (``all.q@nosuchhost`` is refused, as by Grid Engine)."""
    instances = queue_instances(store.conf, store.hosts)
    groups = host_group_members(store.conf)
    for ref in queues:
        qname, at, _ = ref.partition("@")
        known = any(queue_matches(ref, qi, groups) for qi in instances) if at else any(
            fnmatch.fnmatchcase(q, qname or "*") for q in store.conf["queue"])
        if not known:
            raise RequestError("rejected", "Job was rejected because job requests unknown "
                                           f"queue \"{ref}\"")


def scheduling_info(store: Store, jobs: list[Any], placed: set[int] | None = None
                    ) -> dict[int, list[str]]:
    """``qstat -j`` reasons for each pending job, from the qmaster's own bookkeeping.
    ``placed``, if given, gets the jobs the caps left to the placement (the run log of
    ``qconf -tsm``: whether a run had pending jobs to schedule)."""
    if not jobs:
        return {}
    inp = store_pass_input(store)
    caps = store_caps(store, inp.caps, (job.job_id for job in jobs))
    by_category: dict[tuple[Any, ...], list[str]] = {}  # alike jobs wait for one reason
    reserved: list[Reservation] = []
    if inp.reserve is not None and inp.reserve.max_reservation > 0:
        reserved, reserving = store_reservations(store)
        inp.jobs = {**inp.jobs, **reserving}  # the reservations' jobs, for their demands

    def placement(pjob: PlacementJob) -> list[str]:
        key = pjob.category
        if key not in by_category:
            by_category[key] = pending_reasons(pjob, inp)
        return by_category[key] + reservation_reasons(pjob, inp, reserved)
    reasons = {}
    for job in jobs:
        try:
            as_placed = as_placement_job(job)
            if not eligible(as_placed, inp.now):  # -a: the scheduler leaves it (8.1.9)
                reasons[job.job_id] = [NOT_YET_TIME]
                continue

            def placement_lines(job_id: int = job.job_id,
                                as_placed: PlacementJob = as_placed) -> list[str]:
                if placed is not None:
                    placed.add(job_id)
                return placement(as_placed)
            reasons[job.job_id] = with_cap_reasons(
                as_placed, caps, _placeable_ids(store, job.job_id),
                any(t.state_enum is State.PENDING
                    for t in store.enrolled.get(job.job_id, {}).values()),
                placement_lines)
        except Exception as exc:  # noqa: BLE001 - qstat -j says why instead of failing
            reasons[job.job_id] = [f"job cannot be evaluated by the scheduler: "
                                   f"{type(exc).__name__}: {exc}"]
    return reasons


# the last reservations worked out: (store, its event number then, the answer)
_kept: tuple[Store, int, tuple[list[Reservation], dict[int, PlacementJob]]] | None = None


def store_reservations(store: Store) -> tuple[list[Reservation], dict[int, PlacementJob]]:
    """The reservations a pass would find now for the pending ``-R y`` jobs (the
    scheduler's are not sent to the qmaster): a pass over those jobs alone, taken by
    ``-p`` then job id, on a view of its own; and those jobs. Kept until the store
    changes (its next published event): a planning pass may take a second on a big cell
    and must not run again for every ``qstat -j`` of an unchanged cell."""
    global _kept
    if _kept is not None and _kept[0] is store and _kept[1] == store.event_seq:
        return _kept[2]
    found = _store_reservations(store)
    _kept = (store, store.event_seq, found)
    return found


def _store_reservations(store: Store) -> tuple[list[Reservation], dict[int, PlacementJob]]:
    inp = store_pass_input(store)
    pending: list[dict[str, Any]] = []
    ranges: dict[int, tuple[list[list[int]], int]] = {}
    reserving: dict[int, PlacementJob] = {}
    for job_id, job in store.jobs.items():
        if not job.opts.get("reserve"):
            continue
        pending += [t.to_dict() for t in store.enrolled.get(job_id, {}).values()
                    if t.state_enum is State.PENDING]
        rng = store.ranges.get(job_id)
        if rng is not None and rng.pending and not rng.holds:
            ranges[job_id] = (rng.pending, rng.version)
        reserving[job_id] = as_placement_job(job)
    if not pending and not ranges:
        return [], reserving
    inp.jobs = {**inp.jobs, **reserving}
    inp.pending, inp.pending_ranges = pending, ranges
    stats = PassStats()
    dispatch_pass(inp, stats)
    return stats.reservations, reserving


def _placeable_ids(store: Store, job_id: int) -> int:
    """How many of the job's pending ids that are not enrolled the scheduler may place
    (none while its ranges carry a hold)."""
    rng = store.ranges.get(job_id)
    return task_ranges.count(rng.pending) if rng is not None and not rng.holds else 0
