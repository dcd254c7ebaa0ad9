"""qalter: change the requests of pending jobs, as Grid Engine 8.1.9's qalter(1).

Owns the qalter command line (``parse_qalter``, pure) and the command itself. The option
values are read by qsub's parsers (``clients.qsub.parser.OptionParser``), so ``-l``,
``-q``, ``-pe``, ``-p``, ``-P``, ``-N``, ``-hold_jid``, ``-tc`` and ``-R`` accept and refuse
exactly what qsub does; ``-hard``/``-soft`` say which list a later ``-l``/``-q``
replaces. As in Grid Engine a given list replaces the job's list (it is not merged into
it). The qmaster words the answers ("modified hard resource list of job 5", refusals);
they go to stdout and any refusal makes the exit status 1. ``-w e|w|n|v|p`` has the job
as it would become verified by the qmaster (``v``/``p`` change nothing); ``-verify``
prints the requested changes as 8.1.9 does (qstat -j's lines) and sends nothing; ``-u
user_list`` alters every job of those users, the job list being ignored, as 8.1.9 does
(captured: tests/data/reference/qalter/). Holds are qhold's and qrls's business (``-h``
is theirs); other qsub options are refused as unknown.
"""
from __future__ import annotations

import sys

from clients.api import Client, ClientError
from clients.jobctl import Target, host_refusal, seen_jobs, targets
from clients.joblist import (NO_OPTION_ARGUMENT, JobRef, JobSelection, RangeError,
                             job_does_not_exist, parse_job_ref)
from clients.qsub.parser import OptionParser, ParseContext, ParsedOption
from clients.qsub.values import STATUS_ENOIMP, ParseError
from common.record import Record, field
from common.cell import CellNotFound

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXIT_ERROR = 1
# the switches qalter changes a job with; -hard and -soft only steer -l and -q
ALTER_SWITCHES = ("-l", "-q", "-p", "-P", "-N", "-pe", "-hold_jid", "-ot", "-js", "-dl", "-tc",
                  "-R", "-a", "-hold_jid_ad", "-A", "-wd", "-e", "-o", "-i", "-j", "-M", "-m",
                  "-masterq", "-notify", "-r", "-S", "-v", "-V", "-ac", "-dc", "-sc", "-ckpt",
                  "-c", "-w")
# switches whose value is a [host:]path list -> the job's option
PATH_SWITCHES = {"-e": "stderr_paths", "-o": "stdout_paths", "-i": "stdin_paths",
                 "-S": "shell"}
# switches that set one option of the job as given
PLAIN_SWITCHES = {"-A": "account", "-wd": "cwd", "-j": "merge_output", "-notify": "notify",
                  "-r": "rerun", "-masterq": "master_queues"}
# the switches of the ticket and urgency policies -> the job's option they set
POLICY_SWITCHES = {"-js": "job_share", "-dl": "deadline"}


class QalterError(Exception):
    """A command line qalter refuses: the text for stderr and the exit status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message, self.status = message, status


class AlterRequest(Record):
    """What one qalter run asks: the changes (SubmitOptions field names) and the jobs."""

    changes: dict[str, Any] = field(default_factory=dict)
    refs: list[JobRef] = field(default_factory=list)
    help: bool = False
    # -h hold_list: hold types to add (u s o) and to remove (U S O; n removes all three)
    add_holds: list[str] = field(default_factory=list)
    remove_holds: list[str] = field(default_factory=list)
    users: list[str] = field(default_factory=list)  # -u: these users' jobs, not refs
    verify: bool = False  # -verify: print the changes, alter nothing


def parse_qalter(argv: list[str]) -> AlterRequest:
    """qalter's arguments (without argv[0]); raises QalterError with Grid Engine's text."""
    parsed: list[ParsedOption] = []
    add_holds, remove_holds, argv = _hold_list(argv)
    users, argv = _user_list(argv)
    import os  # -V and -v NAME take the caller's environment, -cwd its directory
    ctx = ParseContext(dict(os.environ), os.getcwd(), _read_file, [])
    try:
        OptionParser(ctx, parsed, pseudos=False).run(argv)
    except ParseError as err:
        raise QalterError(f"qalter: {err.text}", err.status) from None
    request = AlterRequest(add_holds=add_holds, remove_holds=remove_holds, users=users)
    for opt in parsed:
        _apply(request, opt)
    return request


def _hold_list(argv: list[str]) -> tuple[list[str], list[str], list[str]]:
    """qalter's ``-h [hold_list]`` (qsub's -h takes no argument): the hold types to add
    and to remove, and the other arguments. ``-h`` alone is a user hold."""
    add: list[str] = []
    remove: list[str] = []
    rest: list[str] = []
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg != "-h":
            rest.append(arg)
            index += 1
            continue
        value = argv[index + 1] if index + 1 < len(argv) else ""
        letters = value.replace(",", "")
        if letters and set(letters) <= set("usonUSO"):
            index += 2
        else:
            letters, index = "u", index + 1
        for letter in letters:
            if letter == "n":
                remove += [t for t in "uso" if t not in remove]
            elif letter.islower() and letter not in add:
                add.append(letter)
            elif letter.isupper() and letter.lower() not in remove:
                remove.append(letter.lower())
    return add, remove, rest


def _user_list(argv: list[str]) -> tuple[list[str], list[str]]:
    """qalter's ``-u user_list`` (repeatable; qsub has no -u): the users and the other
    arguments. A ``-u`` without its list is left for the parser to refuse in 8.1.9's
    words."""
    users: list[str] = []
    rest: list[str] = []
    index = 0
    while index < len(argv):
        if argv[index] == "-u" and index + 1 < len(argv):
            users += [u for u in argv[index + 1].split(",") if u and u not in users]
            index += 2
        else:
            rest.append(argv[index])
            index += 1
    return users, rest


def _read_file(path: str) -> str:
    """-@ files: read relative to the current directory, as qsub does."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def _apply(request: AlterRequest, opt: ParsedOption) -> None:
    """One parsed switch into the request."""
    changes = request.changes
    if opt.switch == "":
        try:
            request.refs += [parse_job_ref(i) for i in str(opt.value).split(",") if i]
        except RangeError as err:
            raise QalterError(err.message, err.status) from None
    elif opt.switch in ("-hard", "-soft"):
        return
    elif opt.switch == "-help":
        request.help = True
    elif opt.switch == "-verify":
        request.verify = True
    elif opt.switch in ("-l", "-q"):
        key = ("soft_" if opt.soft else "hard_") + ("resources" if opt.switch == "-l"
                                                    else "queues")
        if opt.switch == "-l":
            changes.setdefault(key, {}).update(opt.value)
        else:
            changes.setdefault(key, []).extend(opt.value)
    elif opt.switch in ALTER_SWITCHES:
        _apply_scalar(changes, opt)
    else:
        arg = "" if opt.value is True else f" {opt.value}"
        raise QalterError(f"qalter: Unknown option {opt.switch}{arg}", STATUS_ENOIMP)


def _apply_scalar(changes: dict[str, Any], opt: ParsedOption) -> None:
    if opt.switch == "-p":
        changes["priority"] = int(opt.value)
    elif opt.switch == "-N":
        changes["job_name"] = str(opt.value)
    elif opt.switch == "-P":
        changes["project"] = str(opt.value)
    elif opt.switch in ("-hold_jid", "-hold_jid_ad"):
        changes.setdefault(opt.switch[1:], []).extend(opt.value)
    elif opt.switch == "-a":
        changes["start_time"] = str(opt.value)
    elif opt.switch == "-ckpt":
        changes["checkpoint_name"] = str(opt.value)
    elif opt.switch == "-c":  # letters or an interval (clients.qsub.values)
        kind, value = opt.value
        changes[f"checkpoint_{kind}"] = value
    elif opt.switch == "-w":
        changes["verify_mode"] = str(opt.value)
    elif opt.switch == "-ot":  # the parser keeps qsub's -ot as given (qsub refuses it)
        changes["override_tickets"] = int(opt.value)
    elif opt.switch in POLICY_SWITCHES:
        changes[POLICY_SWITCHES[opt.switch]] = opt.value
    elif opt.switch == "-tc":
        changes["task_concurrency"] = int(opt.value)
    elif opt.switch == "-R":
        changes["reserve"] = bool(opt.value)
    elif opt.switch in PATH_SWITCHES:
        changes[PATH_SWITCHES[opt.switch]] = [f"{h}:{p}" if h else p for h, p in opt.value]
    elif opt.switch in PLAIN_SWITCHES:
        changes[PLAIN_SWITCHES[opt.switch]] = opt.value
    elif opt.switch == "-M":
        changes["mail_list"] = [f"{u}@{h}" if h else u for h, u in opt.value]
    elif opt.switch == "-m":  # "n" clears; letters in Grid Engine's order
        letters = "" if "n" in opt.value else str(opt.value)
        changes["mail_options"] = "".join(c for c in "abes" if c in letters)
    elif opt.switch == "-v":  # the job's environment list is replaced by the one given
        changes.setdefault("env", {}).update(dict(opt.value))
    elif opt.switch == "-V":
        return
    elif opt.switch in ("-ac", "-dc", "-sc"):
        _apply_context(changes, opt)
    else:  # -pe name ranges
        name, ranges = opt.value
        changes["pe"] = [name, min(r[0] for r in ranges), max(r[1] for r in ranges)]
        changes["pe_ranges"] = [list(r) for r in ranges]


def _apply_context(changes: dict[str, Any], opt: ParsedOption) -> None:
    """-sc sets the job's context, -ac adds to it, -dc deletes from it (in the order
    given; the qmaster applies -ac/-dc to the job's context as it is then)."""
    pairs = dict(opt.value)
    if opt.switch == "-sc":
        changes["context"] = pairs
        changes.pop("context_add", None)
        changes.pop("context_delete", None)
    elif "context" in changes:
        if opt.switch == "-ac":
            changes["context"].update(pairs)
        else:
            for name in pairs:
                changes["context"].pop(name, None)
    elif opt.switch == "-ac":
        changes.setdefault("context_add", {}).update(pairs)
        deleted = changes.get("context_delete") or []
        changes["context_delete"] = [n for n in deleted if n not in pairs]
        if not changes["context_delete"]:
            del changes["context_delete"]
    else:
        added = changes.get("context_add") or {}
        for name in pairs:
            added.pop(name, None)
        if "context_add" in changes and not added:
            del changes["context_add"]
        changes.setdefault("context_delete", []).extend(
            n for n in pairs if n not in changes.get("context_delete", []))


def answer_lines(target: Target, results: list[dict[str, Any]]) -> tuple[list[str], int]:
    """The qmaster's answers for one target as qalter prints them, and the exit status."""
    lines: list[str] = []
    code = 0
    for result in results:
        if result["result"] == "unknown":
            lines.append(job_does_not_exist(target.item, target.users or None))
        else:
            lines += result.get("messages") or []
        if result["result"] not in ("modified", "verified") or result.get("status"):
            code = EXIT_ERROR  # (a refusal, or -w w's warning, -w v's failed verification)
    return lines, code


def alter_jobs(client: Client, request: AlterRequest) -> tuple[list[str], int]:
    """Look at the jobs (to resolve names to the caller's jobs), then alter each target."""
    refs = [] if request.users else request.refs  # (-u: the job list is ignored)
    views = seen_jobs(client, refs, request.users)
    lines: list[str] = []
    code = 0
    for target in _targets(request, client.user.name, views):
        if target.unknown:
            lines.append(job_does_not_exist(target.item, target.users))
            code = EXIT_ERROR
            continue
        if request.changes:
            more, target_code = answer_lines(target, client.alter([target.body],
                                                                  request.changes))
            lines += more
            code = code or target_code
    for types, add in ((request.add_holds, True), (request.remove_holds, False)):
        if types:  # -h: as qhold and qrls (in 8.1.9 both are qalter -h)
            from clients.qhold import HoldCommand
            more, hold_code = HoldCommand(types, add).act(
                client, JobSelection(refs=refs, users=request.users), views)
            lines += more
            code = code or hold_code
    return lines, code


def _targets(request: AlterRequest, user: str, views: dict[int, Any]) -> list[Target]:
    """The request's targets: with ``-u`` every job of those users (8.1.9 ignores the job
    list then, and names "*" when a user has none), else the job list."""
    if request.users:
        return [Target({"user": u}, "*", [u]) for u in request.users]
    return targets(JobSelection(refs=request.refs), user, views)


# qalter -verify: the lines of qstat -j that 8.1.9 prints for the changes, in its order
# (captured: tests/data/reference/qalter/verify-*); job_name is always there, and the
# environment's place a bare line when -v/-V is not given
VERIFY_BEFORE_NAME = (("account", "account"), ("checkpoint_name", "checkpoint_object"),
                      ("checkpoint_occasion", "checkpoint_attr"),
                      ("checkpoint_interval", "checkpoint_interval"), ("cwd", "cwd"),
                      ("stderr_paths", "stderr_path_list"), ("reserve", "reserve"),
                      ("merge_output", "merge"), ("hard_resources", "hard resource_list"),
                      ("soft_resources", "soft resource_list"),
                      ("mail_options", "mail_options"), ("mail_list", "mail_list"),
                      ("notify", "notify"))
VERIFY_AFTER_NAME = (("stdout_paths", "stdout_path_list"), ("stdin_paths", "stdin_path_list"),
                     ("priority", "priority"), ("job_share", "jobshare"),
                     ("hard_queues", "hard_queue_list"), ("soft_queues", "soft_queue_list"),
                     ("rerun", "restart"), ("shell", "shell_list"))
VERIFY_DEPENDENCIES = (("master_queues", "master hard queue_list"),
                       ("override_tickets", "oticket"),
                       ("hold_jid", "jid_predecessor_list (req)"),
                       ("hold_jid_ad", "ja_ad_predecessor_list"),
                       ("verify_mode", "verify_suitable_queues"), ("project", "project"),
                       ("task_concurrency", "maximum concurrency"), ("context", "context"))


def verify_text(changes: dict[str, Any]) -> str:
    """What ``qalter -verify`` prints for ``changes`` (nothing is sent to the qmaster)."""
    def lines(pairs: tuple[tuple[str, str], ...]) -> str:
        return "".join(f"{label + ':':<28}{_verify_value(key, changes[key])}\n"
                       for key, label in pairs if key in changes)
    env = changes.get("env")
    env_line = (f"{'env_list:':<28}" + ",".join(f"{k}={'NONE' if v is None else v}"
                                                 for k, v in env.items()) + "\n"
                if env else "\n")
    return (lines(VERIFY_BEFORE_NAME) + f"{'job_name:':<28}{changes.get('job_name', '')}\n"
            + lines(VERIFY_AFTER_NAME) + env_line + lines(VERIFY_DEPENDENCIES))


def _verify_value(key: str, value: Any) -> str:
    """One change as qstat -j prints it."""
    if key.endswith("_resources"):
        return ",".join(f"{name}={v}" for name, v in value.items())
    if key.endswith("_paths"):  # (qstat -j: host, file host, path of the first entry)
        host, _, path = str(value[0]).rpartition(":") if ":" in str(value[0]) else \
            ("", "", str(value[0]))
        return f"{host or 'NONE'}:NONE:{path}"
    if key == "checkpoint_occasion":
        return f"{value}    "
    if key == "checkpoint_interval":
        return f"{value} seconds"
    if key == "verify_mode":
        return str("newvp".index(value))
    if key == "context":
        return ",".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, bool):
        return ("y" if value else "n") if key in ("reserve", "merge_output", "rerun") \
            else ("TRUE" if value else "FALSE")
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from clients.qsub.usage import usage as usage_of
    usage = usage_of("qalter")
    try:
        request = parse_qalter(args)
    except QalterError as err:
        sys.stderr.write(err.message + "\n")
        return err.status
    if request.help:
        sys.stdout.write(usage)
        return 0
    if request.verify:  # (before the job list is looked at: 8.1.9 prints the same)
        sys.stdout.write(verify_text(request.changes))
        return 0
    if not (request.refs or request.users) or not (
            request.changes or request.add_holds or request.remove_holds):
        sys.stderr.write(usage + NO_OPTION_ARGUMENT + "\n")
        return EXIT_ERROR
    try:
        with Client() as client:
            lines, code = alter_jobs(client, request)
    except (ClientError, CellNotFound) as err:
        if isinstance(err, ClientError) and host_refusal(err):  # stdout, as 8.1.9's
            print(err.message)
            return EXIT_ERROR
        sys.stderr.write(f"error: {getattr(err, 'message', err)}\n")
        return EXIT_ERROR
    for line in lines:
        print(line)
    return code


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
