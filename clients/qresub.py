"""qresub: submit copies of existing jobs, as qresub(1) of Grid Engine 8.1.9.

A copy has the job's options, script, umask and SGE_O_* values; it is a new job (new
id, submission time, all its array tasks pending) and carries no hold unless ``-h u``
asks for one (8.1.9's copy of a held job is ``qw``, captured). The qmaster checks the
copy as any submission, for the caller: so qresub copies the caller's own jobs only
(8.1.9 lets managers copy other users' jobs, the copy keeping their owner), and not
interactive jobs (their session belongs to a client that is gone). ``-h`` takes the
user hold only (``u``; ``n`` none): a copy with an operator or system hold would need
the operator's rights at submission, which no submission carries here.

Messages and exit codes as 8.1.9's: ``job "N" does not exist`` (stdout, exit 4), usage
errors on stderr as qalter words them (qresub is qalter's code in 8.1.9).
"""
from __future__ import annotations

import sys

from clients.api import ClientError, checked_jobs, connect_or_exit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from clients.api import Client

PRODUCT = "SGE 8.1.9"
USAGE = (f"{PRODUCT}\nusage: qresub [options] job_id_list\n"
         "   [-h hold_list]                           list of hold types concerned\n"
         "   [-help]                                  print this help\n"
         "   job_id_list\n"
         "\n"
         "hold_list               `n' `u' `s' `o' `U' `S' `O'\n"
         "job_id_list             job_id[,job_id,...]\n")
HOLD_LETTERS = "nusoUSO"
# what the qmaster keeps of a job that is not an option of the copy
_NOT_COPIED = ("hold", "session")


class QresubExit(Exception):
    def __init__(self, message: str, status: int, usage: bool = False) -> None:
        super().__init__(message)
        self.message, self.status, self.usage = message, status, usage


class QresubArgs:
    def __init__(self) -> None:
        self.help = False
        self.hold: str | None = None
        self.job_ids: list[int] = []


def parse_args(argv: list[str]) -> QresubArgs:
    args, i = QresubArgs(), 0
    words: list[str] = []
    while i < len(argv):
        word, i = argv[i], i + 1
        if word == "-help":
            args.help = True
        elif word == "-h":
            if i >= len(argv):
                raise QresubExit("ERROR! -h option must have argument", 1, usage=True)
            args.hold, i = argv[i], i + 1
        elif word.startswith("-"):
            raise QresubExit(f'qalter: invalid option argument "{word}"', 2)
        else:
            words.append(word)
    if args.help:
        return args
    if not words:
        raise QresubExit("ERROR! no option argument", 1, usage=True)
    for item in (x for w in words for x in w.split(",") if x):
        if not item.isdigit() or int(item) == 0:
            raise QresubExit(f'ERROR! invalid job id "{item}"', 1)
        args.job_ids.append(int(item))
    if args.hold is not None:
        _check_hold(args.hold)
    return args


def _check_hold(letters: str) -> None:
    bad = [c for c in letters if c not in HOLD_LETTERS]
    if bad or not letters:
        raise QresubExit(f"ERROR! unknown hold list \"{letters}\"", 1, usage=True)
    if set(letters) - {"n", "u", "U"}:
        raise QresubExit('error: qresub -h: only the user hold ("u") is supported by '
                         "pygridengine", 1)


def copy_of(job: dict[str, Any], hold: str | None) -> dict[str, Any]:
    """The submission of a copy of ``job`` (a job_query record with its script)."""
    opts = {k: v for k, v in (job.get("opts") or {}).items() if k not in _NOT_COPIED}
    if hold is not None and set(hold) & {"u", "U"}:
        opts["hold"] = True
    return {"opts": opts, "script": job.get("script"), "umask": job.get("umask", 0o022),
            "sge_o": job.get("sge_o") or {}}


def submitted_line(job_id: int, opts: dict[str, Any]) -> str:
    from clients.qsub.messages import job_id_text
    name = str(opts.get("job_name") or "")
    array = opts.get("array")
    if array:
        return (f'Your job-array {job_id_text(job_id, [int(v) for v in array])} ("{name}") '
                "has been submitted")
    return f'Your job {job_id} ("{name}") has been submitted'


def resubmit(args: QresubArgs, client: Client, out: TextIO) -> int:
    found = {j["job_id"]: j for j in client.jobs(args.job_ids, with_script=True).get("jobs") or []}
    me = client.user.name
    for job_id in args.job_ids:
        job = found.get(job_id)
        if job is None:
            out.write(f'job "{job_id}" does not exist\n')
            return 4
        if job["owner"] != me:
            raise QresubExit(f'error: job "{job_id}" belongs to user "{job["owner"]}": '
                             "pygridengine's qresub copies only your own jobs", 1)
        if (job.get("opts") or {}).get("session"):
            raise QresubExit(f'error: job "{job_id}" is an interactive job: it cannot be '
                             "resubmitted", 1)
        copy = copy_of(job, args.hold)
        if args.hold is not None:
            out.write(f"modified hold of job {job_id}\n")  # (8.1.9's words, captured)
        reply = client.request("submit", {"user": client.user.to_dict(),
                                          "jobs": checked_jobs([copy])})
        out.write(submitted_line(int(reply["job_ids"][0]), copy["opts"]) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = parse_args(argv)
        if args.help:
            sys.stdout.write(USAGE)
            return 0
        client = connect_or_exit("qresub")
        with client:
            return resubmit(args, client, sys.stdout)
    except QresubExit as stop:
        sys.stderr.write((USAGE if stop.usage else "") + stop.message + "\n")
        return stop.status
    except ClientError as error:
        sys.stderr.write(f"error: {error.message}\n")
        return 1


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
