"""``qsub``: submit a batch job, with Grid Engine's options, messages and exit codes.

Option parsing is ``clients.qsub.options``; this module reads the script and the default
request files, sends the job, prints ``Your job N ("name") has been submitted`` and, with
``-sync y``, waits and exits with the job's exit status.
"""
from __future__ import annotations

import os
import sys
import time

from clients.api import (Client, ClientError, checked_jobs, current_umask, resolvable,
                         submit_environment)
from clients.qsub.options import (IMMEDIATE_NOT_SCHEDULED, WAITING_FOR_IMMEDIATE, QsubError,
                                  SubmitOptions, immediate_scheduled, parse_qsub,
                                  submitted_message, sync_report, unable_to_run)
from common.cell import CellNotFound, cell_from_env, posix_join

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def default_request_texts(cwd: str, home: str) -> list[str]:
    """Contents of the cell's, the user's and the directory's ``sge_request`` files.

    Paths as text, not pathlib (an import every qsub would pay for, issue 12)."""
    paths: list[str] = []
    try:
        paths.append(cell_from_env().file("common", "sge_request"))
    except CellNotFound:
        pass
    paths += [posix_join(home, ".sge_request"), posix_join(cwd, ".sge_request")]
    texts = []
    for path in paths:
        try:
            with open(path) as f:
                texts.append(f.read())
        except OSError:
            continue
    return texts


def parse(argv: list[str]) -> SubmitOptions:
    cwd = os.getcwd()
    home = os.environ.get("HOME", "/")
    opts = parse_qsub(argv, script_text=None, cwd=cwd, environ=dict(os.environ), home=home,
                      default_files=default_request_texts(cwd, home))
    if not opts.help:
        with_path_aliases(opts, path_alias_texts())
    return opts


def path_alias_texts(program: str = "qsub") -> list[tuple[str, str]]:
    """(file name, text) of the cell's ``common/sge_aliases`` and the user's
    ``~/.sge_aliases`` (the passwd entry's home, as 8.1.9's), those that exist."""
    import pwd
    from common import path_aliases
    paths = []
    try:
        paths.append(cell_from_env().file(*path_aliases.CELL_FILE))
    except CellNotFound:
        pass
    try:
        paths.append(posix_join(pwd.getpwuid(os.getuid()).pw_dir, path_aliases.USER_FILE))
    except KeyError:
        pass
    texts = []
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                texts.append((path, f.read()))
        except FileNotFoundError:
            continue
        except OSError as err:
            raise QsubError(f'{program}: can\'t read path aliasing file "{path}": '
                            f"{err.strerror}", 7) from None
    return texts


def with_path_aliases(opts: SubmitOptions, texts: list[tuple[str, str]],
                      host: str | None = None, program: str = "qsub") -> None:
    """sge_aliases(5) at submission: SGE_O_WORKDIR mapped for the submit host, and a
    -cwd/-wd job given the aliases of this submit host (common.path_aliases); a file
    that is no alias file refuses the submission as 8.1.9's qsub does (exit 7)."""
    import socket
    from common import path_aliases
    host = host or socket.gethostname()
    aliases = []
    for name, text in texts:
        try:
            aliases += path_aliases.parse(text, name)
        except path_aliases.AliasFileError as err:
            raise QsubError(f'{program}: {err}\n{program}: can\'t read path aliasing file '
                            f'"{name}": invalid syntax', 7) from None
    kept = path_aliases.for_submit_host(aliases, host)
    if not kept:
        return
    opts.submit_cwd = path_aliases.map_path(kept, opts.submit_cwd or os.getcwd(), host)
    if opts.cwd:
        opts.path_aliases = [list(alias) for alias in kept]


def job_description(opts: SubmitOptions, sge_o: dict[str, str] | None = None
                    ) -> dict[str, Any]:
    """The job as the submit request carries it; ``sge_o``: the submit environment's
    SGE_O_* values (None: this process's)."""
    script = None if opts.binary or opts.script_text is None else opts.script_text.encode()
    job_opts = opts.job_opts()
    if opts.script_path is None:
        job_opts["script_path"] = "STDIN"
    job_opts["env"] = with_term(job_opts.get("env") or {})
    if sge_o is None:
        sge_o = submit_environment()
        sge_o["WORKDIR"] = opts.submit_cwd or os.getcwd()
    return {"opts": job_opts, "script": script, "sge_o": sge_o, "umask": current_umask()}


def with_term(env: dict[str, Any]) -> dict[str, Any]:
    """The job's -v/-V variables with TERM first, as 8.1.9's qsub sends them: TERM
    without a value (``qstat -j``: ``env_list: TERM=NONE``; the job gets TERM set
    empty) unless -v or -V gave it one."""
    return env if "TERM" in env else {"TERM": None, **env}


def _array_of(opts: SubmitOptions) -> tuple[int, int, int] | None:
    return tuple(opts.array) if opts.array else None  # type: ignore[return-value]


def check_requested_hosts(client: Client, opts: SubmitOptions) -> None:
    """``-l hostname=name`` must name an execution host or a host that resolves, as
    Grid Engine checks (wildcard patterns are not resolved)."""
    names = [value for key, value in [*opts.hard_resources.items(),
                                      *opts.soft_resources.items()]
             if key in ("hostname", "h") and value and not set(value) & set("*?[]|!&")]
    if not names:
        return
    known = {h.lower() for h in client.conf_get("exechost")}
    for name in names:
        if name.lower() not in known and not resolvable(name):
            raise ClientError("rejected", f'can\'t resolve hostname "{name}"')


def submit(client: Client, opts: SubmitOptions) -> int | None:
    """The new job's id, or None for ``-w v`` (verified, not submitted)."""
    description = job_description(opts)
    if opts.jsv:  # qsub -jsv: what the JSVs correct is what is submitted (clients.jsv)
        description["opts"] = client_jsvs(opts.jsv, description["opts"], client)
        opts.job_name = description["opts"].get("job_name") or opts.job_name
        opts.array = description["opts"].get("array")
    check_requested_hosts(client, opts)
    reply = client.request("submit", {"user": client.user.to_dict(),
                                      "jobs": checked_jobs([description])})
    if reply.get("verification"):
        print(reply["verification"][0])
        return None
    job_id = int(reply["job_ids"][0])
    opts.job_name = (reply.get("job_names") or [opts.job_name])[0]  # (a server JSV's)
    notes = (reply.get("notes") or [{}])[0]
    lines = [*notes.get("lines", []),
             submitted_message(job_id, opts.job_name, _array_of(opts), terse=opts.terse)]
    if notes.get("unable"):  # Grid Engine's answer: an error, though the job is in
        raise SubmittedWithError(job_id, "\n".join(lines))
    print("\n".join(lines))
    return job_id


def client_jsvs(urls: list[str], job_opts: dict[str, Any], client: Client,
                program: str = "qsub") -> dict[str, Any]:
    """The job's options as the -jsv verifiers leave them; ClientError when refused."""
    from clients.jsv import JsvRejected, run_client_jsvs
    try:
        return run_client_jsvs(urls, job_opts, user=client.user.name,
                               group=client.user.group, environ=os.environ, program=program)
    except JsvRejected as err:
        raise ClientError("rejected", str(err)) from None


class SubmittedWithError(Exception):
    """The job is in, but Grid Engine words the answer as a failure (exit status 1)."""

    def __init__(self, job_id: int, text: str) -> None:
        super().__init__(text)
        self.job_id, self.text = job_id, text


def immediate(client: Client, job_id: int) -> bool:
    """-now y: True once the job started; False once the scheduler refused it in the
    pass that could not start it (the qmaster deleted it), as 8.1.9's qsub waits for its
    scheduler's run. The progress lines go to stderr, as 8.1.9's (``jid=$(qsub -terse
    -now y ...)`` gets the job id alone). Ctrl-C while waiting deletes the job."""
    from common.jobstate import NOT_SCHEDULED
    print(WAITING_FOR_IMMEDIATE, file=sys.stderr, flush=True)
    pause = 0.01
    try:
        while True:
            tasks = client.jobs([job_id], include_finished=True)["tasks"]
            if not tasks or any(t.get("deleted_by") == NOT_SCHEDULED for t in tasks):
                print("\n" + IMMEDIATE_NOT_SCHEDULED, file=sys.stderr)
                return False
            if not {t["state"] for t in tasks} & {"pending", "hold"}:
                print("\n" + immediate_scheduled(str(job_id)), file=sys.stderr)
                return True
            time.sleep(pause)
            pause = min(0.2, pause * 1.5)  # (a pass takes milliseconds; a busy one longer)
    except KeyboardInterrupt:
        client.delete([{"job_id": job_id}])
        raise


def wait_and_report(client: Client, job_id: int, opts: SubmitOptions) -> int:
    results = client.wait([job_id])[job_id]
    rc = 0
    for task in results:
        label = f"{job_id}.{task['task_id']}" if opts.array else str(job_id)
        report = _report(label, task, opts.terse)
        if report.text:
            stream = sys.stdout if report.stream == "stdout" else sys.stderr
            print(report.text, file=stream)
        rc = report.exit_code if report.exit_code else rc
    return rc


def _report(label: str, task: dict[str, Any], terse: bool) -> Any:
    if not task.get("started") and task.get("deleted"):
        return sync_report(label, never_ran=True)
    if task.get("signal"):
        import signal  # (only -sync's report of a signalled job needs its names)
        try:
            name = signal.Signals(int(task["signal"])).name
        except ValueError:
            name = str(task["signal"])
        return sync_report(label, signal=name)
    if task.get("exit_status") is None:
        return sync_report(label)
    return sync_report(label, exit_code=int(task["exit_status"]), terse=terse)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = parse(argv)
    except QsubError as err:
        sys.stderr.write(err.message if err.message.endswith("\n") else err.message + "\n")
        return err.exit_code
    for line in opts.warnings:
        print(line)
    if opts.help:
        from clients.qsub.usage import usage
        sys.stdout.write(usage("qsub"))
        return 0
    if opts.verify:  # -verify: print the job as 8.1.9 does, submit nothing
        from clients.api import current_user
        from clients.qsub.verify import verify_text
        sys.stdout.write(verify_text(job_description(opts), current_user().name, time.time()))
        return 0
    try:
        client = Client()
        job_id = submit(client, opts)
        if job_id is not None and opts.now and not immediate(client, job_id):
            return 1
        if job_id is not None and opts.sync:
            return wait_and_report(client, job_id, opts)
    except SubmittedWithError as err:
        sys.stderr.write(unable_to_run(err.text) + "\n")
        return 1
    except (ClientError, CellNotFound) as err:
        message = err.message if isinstance(err, ClientError) else str(err)
        sys.stderr.write(unable_to_run(message) + "\n")
        return 1
    return 0


if __name__ == "__main__":
    import clients  # (as the launcher, clients/scripts/)
    clients.run(main)
