"""qstat: show jobs and queues of the cell, as qstat(1) of Grid Engine 8.1.9.

Supported: -u user_list (default: the caller's jobs only, "*" for everyone, "$user"),
-s {p|r|s|z|hu|ho|hs|hd|hj|ha|h|a} combinations, -f, -F [names], -ne, -r, -ext, -urg,
-pri, -ncb, -j [job_list], -xml, -q wc_queue_list, -qs states, -explain a|c|A|E,
-pe pe_list, -U user_list, -l resource_list, -g c, -g d, -g t, -t, -help: every option of
qstat(1). The priorities (``prior``, -urg, -pri, -ext's tickets) are the
qmaster's policy view (``qmaster.policy_view``).

Option parsing follows Grid Engine's two stages: words after an option up to the next
"-..." are its arguments; an unknown word prints the usage and 'invalid option argument'
on stderr (exit 1), an option missing its argument prints "<opt> option must have argument".
"""
from __future__ import annotations

import os
import sys

from clients.api import Client, ClientError, connect_or_exit
from common.record import Record, field
from common.task_letters import DEFAULT_STATES, parse_state_filter

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

# Imported where the options that need them are handled (issue 12): qstat -j's views
# (clients.views.detail), -q's host groups (common.cluster, common.objects_conf) and
# fnmatch (re). The views and renderers of a listing (clients.views.qstat,
# clients.render.qstat) are imported while the qmaster works on the jobs asked for
# (``_load_listing``), or where a function needs them first.

PRODUCT = "SGE 8.1.9"
_FLAGS = ("-help", "-ncb", "-f", "-ext", "-urg", "-pri", "-xml", "-ne", "-r", "-t")
_OPTIONAL_ARG = ("-F", "-j")
_REQUIRED_ARG = ("-g", "-l", "-s", "-qs", "-explain", "-q", "-u", "-U", "-pe", "-fmt")
EXPLAIN_LETTERS = "acAE"
QUEUE_STATE_LETTERS = "acdosuACDES"
_S_LINES = ("show pending, running, suspended, zombie jobs,",
            "jobs with a user/operator/system/array-dependency hold, ",
            "jobs with a start time in future or any combination only.",
            "h is an abbreviation for huhohshdhjha", "a is an abbreviation for prsh")
# the end of qstat's usage, and of qselect's: what the arguments are (as 8.1.9 prints it)
ARGUMENT_TYPES = ("pe_list                  pe[,pe,...]\n"
                  "job_identifier_list      [job_id|job_name|pattern]{, [job_id|job_name|pattern]}\n"
                  "resource_list            resource[=value][,resource[=value],...]\n"
                  "user_list                user|*|@group[,user|*|@group],...]\n"
                  "resource_attributes      resource,resource,...\n"
                  "wc_cqueue                wildcard expression matching a cluster queue\n"
                  "wc_host                  wildcard expression matching a host\n"
                  "wc_hostgroup             wildcard expression matching a hostgroup\n"
                  "wc_qinstance             wc_cqueue@wc_host\n"
                  "wc_qdomain               wc_cqueue@wc_hostgroup\n"
                  "wc_queue_list            wc_cqueue|wc_qdomain|wc_qinstance\n"
                  "wc_queue_list            wc_queue[,wc_queue,...]\n")
USAGE = (f"{PRODUCT}\nusage: qstat [options]\n"
         "        [-ext]                            view additional attributes\n"
         "        [-explain a|c|A|E]                show reason for queue c(onfiguration ambiguous), "
         "a(larm), suspend A(larm), E(rror) state\n"
         "        [-f]                              full output\n"
         "        [-F [resource_attributes]]        full output and show (selected) resources of queue(s)\n"
         "        [-g c]                            display cluster queue summary\n"
         "        [-g d]                            display all job-array tasks (do not group)\n"
         "        [-g t]                            display all parallel job tasks (do not group)\n"
         "        [-help]                           print this help\n"
         "        [-j [job_identifier_list]]        show scheduler job information\n"
         "        [-l resource_list]                request the given resources\n"
         "        [-ne]                             hide empty queues\n"
         "        [-ncb]                            suppress additional binding specific parameters\n"
         "        [-pe pe_list]                     select only queues with one of these parallel environments\n"
         "        [-q wc_queue_list]                print information on given queue\n"
         "        [-qs {a|c|d|o|s|u|A|C|D|E|S}]     selects queues which are in the given state(s)\n"
         "        [-r]                              show requested resources of job(s)\n"
         f"        [-s {{p|r|s|z|hu|ho|hs|hd|hj|ha|h|a}}] {_S_LINES[0]}\n"
         + "".join(f"                                          {line}\n" for line in _S_LINES[1:])
         + "        [-t]                              show task information (implicitly -g t)\n"
         "        [-u user_list]                    view jobs of this user list\n"
         "        [-U user_list]                    select only queues where these users have access\n"
         "        [-urg]                            display job urgency information\n"
         "        [-pri]                            display job priority information\n"
         "        [-xml]                            display the information in XML format\n"
         "\n"
         + ARGUMENT_TYPES
         # ours, after 8.1.9's lines
         + "\n        [-fmt plain|json]                 output format (json: not in 8.1.9)\n")


class QstatExit(Exception):
    """Stop with this exit status after ``stderr`` (and the usage first, if asked)."""

    def __init__(self, message: str, status: int = 1, usage: bool = False) -> None:
        super().__init__(message)
        self.message, self.status, self.usage = message, status, usage


class QstatArgs(Record):
    help: bool = False
    full: bool = False
    extended: bool = False
    urgency: bool = False             # -urg
    priority: bool = False            # -pri
    xml: bool = False
    resources: bool = False           # -r
    no_empty: bool = False            # -ne
    no_binding: bool = False          # -ncb
    show_queue_resources: bool = False  # -F
    resource_names: list[str] | None = None
    job_info: bool = False            # -j
    job_items: list[str] = field(default_factory=list)
    states: frozenset[str] = DEFAULT_STATES
    users: list[str] = field(default_factory=list)
    queues: list[str] = field(default_factory=list)
    pes: list[str] = field(default_factory=list)
    group: str = ""                   # letters of -g
    explain: str = ""                 # letters of -explain
    queue_states: str = ""            # letters of -qs
    queue_users: list[str] = field(default_factory=list)  # -U
    tasks: bool = False               # -t (implies -g t)
    resource_request: list[str] = field(default_factory=list)  # -l
    fmt: str | None = None            # -fmt (the last wins)
    json: bool = False                # -fmt json


def _split(words: list[str]) -> list[str]:
    return [item for word in words for item in word.split(",") if item]


def tokenize(argv: list[str]) -> list[tuple[str, list[str]]]:
    """Stage 1: (switch, arguments) pairs; raises QstatExit on an unknown word."""
    out, errors, i = [], [], 0
    while i < len(argv):
        switch, i = argv[i], i + 1
        if switch not in _FLAGS + _OPTIONAL_ARG + _REQUIRED_ARG:
            raise QstatExit(f'invalid option argument "{switch}"', usage=True)
        args: list[str] = []
        while switch not in _FLAGS and i < len(argv) and not argv[i].startswith("-") and argv[i]:
            args.append(argv[i])
            i += 1
        if switch in _REQUIRED_ARG and not args:
            errors.append(f"{switch} option must have argument")
            continue
        out.append((switch, args))
    if errors:
        raise QstatExit("\n".join(errors))
    return out


def _apply(args: QstatArgs, switch: str, values: list[str]) -> None:
    simple = {"-help": "help", "-f": "full", "-ext": "extended", "-xml": "xml",
              "-urg": "urgency", "-pri": "priority",
              "-r": "resources", "-ne": "no_empty", "-ncb": "no_binding"}
    if switch in simple:
        setattr(args, simple[switch], True)
    elif switch == "-t":  # the parallel tasks; implicitly -g t
        args.tasks = True
        args.group += "" if "t" in args.group else "t"
    elif switch == "-F":
        args.show_queue_resources, args.full = True, True
        args.resource_names = _split(values) if values else args.resource_names
    elif switch == "-j":
        args.job_info = True
        args.job_items = _split(values) if values else args.job_items
    elif switch == "-s":
        states = parse_state_filter(values[0])
        if states is None:
            raise QstatExit("ERROR! wrong argument to -s option", usage=True)
        args.states = states
    elif switch in ("-u", "-q", "-pe", "-U", "-l"):
        getattr(args, {"-u": "users", "-q": "queues", "-pe": "pes", "-U": "queue_users",
                       "-l": "resource_request"}[switch]).extend(_split(values))
    elif switch == "-g":
        _apply_group(args, "".join(values))
    elif switch == "-explain":  # the reasons of these states; implies -f; the last wins
        args.explain = _state_letters(values[0], EXPLAIN_LETTERS)
        args.full = True
    elif switch == "-qs":  # only queue instances in one of these states; the last wins
        args.queue_states = _state_letters(values[0], QUEUE_STATE_LETTERS)
    elif switch == "-fmt":
        args.fmt = values[0]


def _state_letters(text: str, valid: str) -> str:
    bad = next((c for c in text if c not in valid), None)
    if bad is not None:
        message = f"unknown queue state: {bad} found in string: {text}"
        raise QstatExit(f"error: {message}\n{message}")
    return text


def _apply_group(args: QstatArgs, letters: str) -> None:
    for letter in letters:
        if letter not in "cdt":
            raise QstatExit(f"wrong character '{letter}' for -g option")
        args.group += letter


def parse_args(argv: list[str], defaults: list[str] | None = None) -> QstatArgs:
    """qstat's arguments after the options of the sge_qstat(5) files (``defaults``: their
    texts, the cell's first), which the command line's same options replace."""
    from common.default_options import merged
    args = QstatArgs()
    tokens = merged(defaults or [], argv, tokenize)
    if any(switch == "-help" for switch, _ in tokens):
        args.help = True  # -help wins over everything else, as in sge_parse_qstat()
        return args
    for switch, values in tokens:
        _apply(args, switch, values)
    if args.fmt is not None:  # (json's modules only when asked: a command starts small)
        from clients.render.jsondoc import FormatError, check_format
        try:
            args.json = check_format(args.fmt, xml=args.xml)
        except FormatError as exc:
            raise QstatExit(f"ERROR! {exc}", usage=True) from None
    return args


def default_option_texts() -> list[str]:
    """The texts of the cell's ``common/sge_qstat`` and the caller's ``~/.sge_qstat``
    (sge_qstat(5)); a missing or unreadable file is none."""
    import pwd
    from common.cell import CellNotFound, cell_from_env
    paths = []
    try:
        paths.append(cell_from_env().file("common", "sge_qstat"))
    except CellNotFound:
        pass
    try:
        paths.append(os.path.join(pwd.getpwuid(os.getuid()).pw_dir, ".sge_qstat"))
    except KeyError:
        pass
    texts = []
    for path in paths:
        try:
            with open(path) as f:
                texts.append(f.read())
        except (OSError, UnicodeDecodeError):
            continue
    return texts


def effective_users(given: list[str], me: str) -> tuple[str, ...] | None:
    """str_list_transform_user_list(): none given = the caller, "*" = everyone."""
    if not given:
        return (me,)
    if "*" in given:
        return None
    return tuple(me if u.lower() == "$user" else u for u in given)


# --------------------------------------------------------------------------- queue selection

def select_instances(refs: list[str], cluster: dict[str, Any],
                     groups: dict[str, list[str]]) -> frozenset[str]:
    """Instances matched by a wc_queue_list: "cq", "cq@host", "cq@@hostgroup" (wildcards)."""
    import fnmatch
    from clients.views.qstat import instance_name
    from common.objects_conf.host import expand_hostgroup
    chosen: set[str] = set()
    for ref in refs:
        cq, at, where = ref.partition("@")
        hosts = expand_hostgroup(where, groups) if where.startswith("@") else None
        for inst in cluster.get("instances") or []:
            if not fnmatch.fnmatchcase(inst["queue"], cq or "*"):
                continue
            if at and hosts is not None and inst["host"] not in hosts:
                continue
            if at and hosts is None and not fnmatch.fnmatch(inst["host"].lower(), where.lower()):
                continue
            chosen.add(instance_name(inst["queue"], inst["host"]))
    return frozenset(chosen)


def _pe_instances(pes: list[str], cluster: dict[str, Any]) -> frozenset[str]:
    from clients.views.qstat import instance_name
    return frozenset(instance_name(i["queue"], i["host"]) for i in cluster.get("instances") or []
                     if set(str(i.get("pe_list") or "").split()) & set(pes))


def _instances(args: QstatArgs, client: Client, cluster: dict[str, Any]) -> frozenset[str] | None:
    selected = None
    for option, refs in (("-q", args.queues), ("-pe", args.pes)):
        if not refs:
            continue
        groups = _hostgroups(client) if option == "-q" and any("@@" in r for r in refs) else {}
        found = select_instances(refs, cluster, groups) if option == "-q" else _pe_instances(refs, cluster)
        selected = found if selected is None else selected & found
        if not selected:
            raise QstatExit(f"error: no queues remaining after {option} queue selection")
    if args.queue_states:
        from clients.views.qstat import hosts_by_name, instance_name, instance_states
        hosts = hosts_by_name(cluster)
        found = frozenset(instance_name(i["queue"], i["host"])
                          for i in cluster.get("instances") or []
                          if set(instance_states(i, hosts)) & set(args.queue_states))
        selected = found if selected is None else selected & found
    if args.resource_request:
        found = frozenset((cluster.get("selected") or {}).get("instances") or [])
        selected = found if selected is None else selected & found
        if not selected:
            raise NothingSelected
    if args.queue_users:
        found = user_instances(args.queue_users, cluster, _access_conf(client))
        selected = found if selected is None else selected & found
        if not selected:
            raise QstatExit("error: no queues remaining after -U queue selection")
    return selected


def _access_conf(client: Client) -> dict[str, Any]:
    """What -U reads: the objects with access lists, the user sets, the host groups (for
    a queue's [@group=...] values) and the global configuration."""
    return {kind: client.conf_get(kind)
            for kind in ("queue", "exechost", "pe", "userset", "hgrp", "conf")}


def user_instances(names: list[str], cluster: dict[str, Any],
                   conf: dict[str, Any]) -> frozenset[str]:
    """-U: the instances every name may use (8.1.9's select_by_queue_user_list): the
    queue's, its host's and the global host's user_lists/xuser_lists and the global
    configuration's; a name ``@group`` is asked as that group, any other as that user
    without a group, as 8.1.9 asks."""
    from clients.views.qstat import instance_name
    from common.access import user_allowed
    from common.cluster import attr
    from common.placement.pass_conf import Access
    access = Access(conf)
    usersets = conf.get("userset") or {}
    glob = (conf.get("conf") or {}).get("global") or []
    cluster_lists = (attr(glob, "user_lists", "NONE") or "NONE",
                     attr(glob, "xuser_lists", "NONE") or "NONE")
    asked = [("", n[1:]) if n.startswith("@") else (n, "") for n in names]
    allowed = [user_allowed(u, [g] if g else [], *cluster_lists, usersets) for u, g in asked]
    return frozenset(instance_name(i["queue"], i["host"]) for i in cluster.get("instances") or []
                     if all(ok and access.queue_allows(u, g, i["queue"], i["host"])
                            for (u, g), ok in zip(asked, allowed)))


def _hostgroups(client: Client) -> dict[str, list[str]]:
    """The cell's host groups with their members (for ``-q cq@@group``)."""
    from common.cluster import hostgroups
    return hostgroups({"hgrp": client.conf_get("hgrp")})


def _long_qnames() -> int | None:
    """SGE_LONG_QNAMES as a number (0 when it is not one), None when it is not set."""
    env = os.environ.get("SGE_LONG_QNAMES")
    if env is None:
        return None
    return int(env) if env.lstrip("-").isdigit() else 0


def queue_width(cluster: dict[str, Any]) -> int:
    """30, or SGE_LONG_QNAMES (at least 10; -1 = the longest queue instance name)."""
    from clients.render.qstat import DEFAULT_QUEUE_WIDTH
    from clients.views.qstat import instance_name
    width = _long_qnames()
    if width is None:
        return DEFAULT_QUEUE_WIDTH
    if width == -1:
        names = [instance_name(i["queue"], i["host"]) for i in cluster.get("instances") or []]
        return max([len(n) for n in names] + [-1])
    return max(width, 10)


# --------------------------------------------------------------------------- output

def _strip_binding(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        row["binding"] = None


def _needs_cluster_first(args: QstatArgs) -> bool:
    """Whether the listing reads the queue instances whatever the jobs are: queue
    selection (-q, -pe, -qs), queue output (-f, -F, -explain, -g c) or queue names as
    wide as the longest (SGE_LONG_QNAMES=-1). Else only the order of running rows needs
    them, and a listing without started tasks asks the qmaster for the jobs alone."""
    return bool(args.full or "c" in args.group or args.queues or args.pes
                or args.queue_states or args.queue_users or args.resource_request
                or _long_qnames() == -1)


def _load_listing() -> None:
    """Import the views and renderers of a listing (while the qmaster works on its jobs)."""
    import clients.render.qstat  # noqa: F401
    import clients.views.qstat  # noqa: F401


def selection_cluster(args: QstatArgs, client: Client) -> dict[str, Any]:
    """The cluster with -l's selection; a -l list the qmaster cannot type (an unknown
    resource): exit 1 without a word, as 8.1.9's qstat and qselect."""
    if not args.resource_request:
        return client.cluster(resources=args.show_queue_resources)
    cluster = client.cluster(resources=args.show_queue_resources,
                             select=",".join(args.resource_request))
    if (cluster.get("selected") or {}).get("error"):
        raise QstatExit("")
    return cluster


class NothingSelected(Exception):
    """-l selects no queue instance: 8.1.9's qstat prints nothing at all (exit 0)."""


def job_listing(args: QstatArgs, client: Client, out: TextIO) -> int:
    cluster = selection_cluster(args, client) if _needs_cluster_first(args) else None
    users = effective_users(args.users, client.user.name)
    try:
        instances = None if cluster is None else _instances(args, client, cluster)
    except NothingSelected:
        return 0
    if "c" in args.group:
        if args.xml:
            raise QstatExit('error: qstat option "-g c -xml" is not supported by pygridengine')
        from clients.render.qstat import render_cluster_queue_summary
        from clients.views.qstat import cluster_queue_summary
        summary = cluster_queue_summary(cluster or {}, instances)
        if args.json:
            from clients.render.jsondoc.qstat import render_cluster_queues
            out.write(render_cluster_queues(summary))
            return 0
        out.write(render_cluster_queue_summary(summary, extended=args.extended,
                                               queue_width=queue_width(cluster or {})))
        return 0
    # array tasks as range lists; only the selected owners' jobs, unless -r must name
    # predecessors of other owners
    reply = client.jobs(include_finished="z" in args.states, ranges=True, brief=True,
                        owners=list(users) if users and not args.resources else None,
                        priorities=True, pe_tasks=args.tasks, while_waiting=_load_listing)
    from clients.render import qstat as rq
    from clients.views import qstat as views
    views.attach_policy(reply)
    flt = views.JobFilter(states=args.states, users=users, instances=instances)
    width = queue_width(cluster or {})
    # the jobs -u selects, once for every kind of row; the -r and -ext blocks only when shown
    selected = views.selected_jobs(reply, flt)
    columns = views.Columns(resources=args.resources, extended=args.extended,
                            policy=args.urgency or args.priority)
    shown = {"extended": args.extended, "urgency": args.urgency, "priority": args.priority}
    pending = views.pending_rows(reply, flt, columns=columns, selected=selected)
    pending = _ungrouped(pending, reply) if "d" in args.group else pending
    pending += views.zombie_rows(reply, flt, columns=columns, selected=selected)
    by_slot = "t" in args.group  # -g t: a line per slot, the master column
    extra = _extra_master_line(client) if by_slot else frozenset()
    pending = views.per_slot_rows(pending) if by_slot else pending
    if args.full:
        queues = views.queue_rows(cluster or {}, reply, flt, resource_names=args.resource_names,
                                  show_resources=args.show_queue_resources,
                                  explain=args.explain, columns=columns, selected=selected)
        queues = [q for q in queues if q["jobs"]] if args.no_empty else queues
        for queue in queues if by_slot else []:
            queue["jobs"] = views.per_slot_rows(queue["jobs"], by_instance=True,
                                                extra_master_line=extra)
        if by_slot:  # (which lines repeat the job: in print order, across the instances)
            marked = iter(views.continued([r for q in queues for r in q["jobs"]]))
            for queue in queues:
                queue["jobs"] = [next(marked) for _ in queue["jobs"]]
                queue["jobs"] = views.attach_subtasks(queue["jobs"], reply) if args.tasks \
                    else queue["jobs"]
        rows = pending + [r for q in queues for r in q["jobs"]]
    else:
        if cluster is None and views.shows_started_tasks(selected, flt):  # instances' order
            cluster = client.cluster(resources=args.show_queue_resources)
        running = views.running_rows(reply, cluster or {}, flt, columns=columns,
                                     selected=selected)
        running = views.continued(views.per_slot_rows(running, extra_master_line=extra)) \
            if by_slot else running
        running = views.attach_subtasks(running, reply) if args.tasks else running
        rows = running + pending
    if args.no_binding:
        _strip_binding(rows)
    if args.json:
        from clients.render.jsondoc.qstat import render_listing
        text = render_listing(running if not args.full else [], pending,
                              queues=queues if args.full else None,
                              resources=args.resources, **shown)
    elif args.xml:
        text = (rq.render_full_xml(queues, pending, **shown) if args.full else
                rq.render_job_table_xml(running, pending, **shown))
    elif args.full:
        text = rq.render_full(queues, pending, show_resources=args.resources,
                              queue_width=width, **shown)
    else:
        text = rq.render_job_table(rows, show_resources=args.resources, queue_width=width,
                                   tasks=args.tasks, **shown)
    out.write(text)
    return 0


def _extra_master_line(client: Client) -> frozenset[str]:
    """-g t: the PEs whose job_is_first_task is FALSE (their master task holds no slot:
    8.1.9 prints one more line at the master instance)."""
    from common.cluster import attr
    return frozenset(name for name, pairs in (client.conf_get("pe") or {}).items()
                     if attr(pairs, "job_is_first_task", "TRUE").upper() == "FALSE")


def _ungrouped(rows: list[dict[str, Any]], reply: dict[str, Any]) -> list[dict[str, Any]]:
    """-g d: one row per pending array task instead of task ranges."""
    out = []
    for row in rows:
        spec = row.get("pending_tasks")
        if not spec:
            out.append(row)
            continue
        for task_id in _range_ids(spec):
            out.append({**row, "pending_tasks": None, "task_id": task_id})
    return out


def _range_ids(spec: str) -> list[int]:
    """The ids of a pending_tasks text ("1,3-9:2" form)."""
    ids: list[int] = []
    for part in spec.split(","):
        bounds, _, step = part.partition(":")
        low, _, high = bounds.partition("-")
        ids += list(range(int(low), int(high or low) + 1, int(step or 1)))
    return ids


def unknown_jobs_xml(items: list[str]) -> str:
    from clients.render import qstat as rq
    body = rq.xml_tree([("element", [("ST_name", item)]) for item in items], 1)
    return "\n".join([rq.XML_DECL, "<unknown_jobs >"] + body + ["</unknown_jobs>"]) + "\n"


def job_details(args: QstatArgs, client: Client, out: TextIO, err: TextIO) -> int:
    """qstat -j: the named jobs (any owner); none found is an error (exit 1)."""
    if not args.job_items:
        # without a list 8.1.9 prints the scheduler's global messages, then a summary of
        # the jobs' messages (not kept here: only the global ones schedd_job_info makes)
        if args.json:
            from clients.render.jsondoc.qstat import render_job_details
            out.write(render_job_details([], global_messages=global_messages(client)))
        elif not args.xml:  # (-xml: 8.1.9's SME dump is not made)
            out.write(summary_globals(client))
        return 0
    from clients.render import qstat as rq
    from clients.views.detail import job_detail, select_jobs
    everything = client.jobs(set_aside=True, ranges=True)
    chosen, _missing = select_jobs(everything.get("jobs") or [], args.job_items)
    for job_id, why in sorted((everything.get("set_aside") or {}).items()):
        if str(job_id) in args.job_items:
            err.write(f"job {job_id} was set aside when the qmaster started: {why}\n")
    if not chosen:
        if args.json:
            from clients.render.jsondoc.qstat import render_job_details
            out.write(render_job_details([], unknown=args.job_items))
            err.write(rq.render_jobs_not_found(args.job_items))
            return 1
        if args.xml:
            out.write(unknown_jobs_xml(args.job_items))
            return 0
        err.write(rq.render_jobs_not_found(args.job_items))
        return 1
    full = client.jobs([j["job_id"] for j in chosen], with_script=True, explain=True,
                       priorities=True)
    from clients.views.qstat import attach_policy
    attach_policy(full)
    tasks: dict[int, list[dict[str, Any]]] = {}
    for task in sorted(full.get("tasks") or [], key=lambda t: t["task_id"]):
        tasks.setdefault(task["job_id"], []).append(task)
    details = [job_detail(j, tasks.get(j["job_id"], []), everything.get("jobs") or [],
                          (full.get("scheduling_info") or {}).get(j["job_id"]) or [],
                          full.get("scheduling_globals") or [])
               for j in sorted(full.get("jobs") or [], key=lambda j: j["job_id"])]
    if args.no_binding:
        for detail in details:
            detail["binding"] = None
    if args.json:
        from clients.render.jsondoc.qstat import render_job_details
        out.write(render_job_details(details, unknown=_missing))
        return 0
    out.write(rq.render_job_detail_xml(details) if args.xml else
              rq.render_job_detail(details, show_binding=not args.no_binding))
    return 0


def summary_globals(client: Any) -> str:
    """``qstat -j`` without jobs: the scheduler's global messages, as 8.1.9 prints them
    (``scheduling info:`` lines, then an empty line), for the current
    ``schedd_job_info`` (common.sched_info)."""
    from clients.render.qstat_job import render_global_messages
    return render_global_messages(global_messages(client))


def global_messages(client: Any) -> list[str]:
    """The scheduler's global messages for the current ``schedd_job_info``."""
    from common.sched_info import job_info_of
    sconf = client.conf_get("sconf")
    return list(job_info_of(sconf.get("global") or []).global_messages())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = parse_args(argv, default_option_texts())
        if args.help:
            sys.stdout.write(USAGE)
            return 0
        client = connect_or_exit("qstat")
        with client:
            if args.job_info:
                return job_details(args, client, sys.stdout, sys.stderr)
            return job_listing(args, client, sys.stdout)
    except QstatExit as stop:
        sys.stderr.write((USAGE if stop.usage else "") + (f"{stop.message}\n" if stop.message
                                                          else ""))
        return stop.status
    except ClientError as error:
        if args.job_info and error.message.startswith('denied: host "'):
            # 8.1.9's qstat -j asks twice (jobs, scheduler messages); each is refused
            sys.stderr.write(f"{error.message}\n" * 2)
            return 1
        sys.stderr.write(f"error: {error.message}\n")
        return 1


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main, collect=False)
