"""The cell as a DRMAA session sees it: submission through qsub's own parser and
submit path, job records, and the five control actions, on ``clients.api.Client`` (so
with all its identity paths: the qmaster's Unix socket on its host, CURVE with a MUNGE
credential elsewhere). Refusals become DrmaaErrors with Grid Engine's words."""
from __future__ import annotations

from typing import Any, Mapping

from clients.api import Client, ClientError, checked_jobs
from clients.drmaa import errors
from clients.drmaa.errors import DrmaaError
from clients.drmaa.session import HOLD, RESUME, SUSPEND, TERMINATE
from clients.drmaa.template import check_command

# a ClientError's code that means the qmaster was not reached
_UNREACHED = frozenset({"unreachable", "timeout", "no_qmaster"})
# qmod's answers that mean the task is not in a state the action applies to
_NOT_STARTED = "in pending/hold state"
_ALREADY_UNSUSPENDED = "is already unsuspended"
_NOT_INVALID = 'invalid queue or job "'


def client_failure(err: ClientError, refused: int = errors.DENIED_BY_DRM) -> DrmaaError:
    if err.code in _UNREACHED:
        return DrmaaError(errors.DRM_COMMUNICATION_FAILURE, err.message)
    return DrmaaError(refused, err.message)


def _qsub_refusal(message: str) -> DrmaaError:
    """qsub's words for a command line it refuses, as 8.1.9's libdrmaa gives them: without
    the program's name, as one line."""
    text = message.strip()
    text = text[len("qsub: "):] if text.startswith("qsub: ") else text
    return DrmaaError(errors.DENIED_BY_DRM, text + "\n")


class ClientBackend:
    """``clients.drmaa.session.Backend`` on one Client (the agent's main thread's)."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def submit(self, argv: list[str], env: Mapping[str, str], command: list[str]
               ) -> tuple[int, list[int]]:
        from clients.qsub.main import check_requested_hosts, client_jsvs, job_description, parse
        from clients.qsub.options import QsubError
        try:
            # qsub's own reading of its command line, with the sge_request files (the
            # agent's directory and environment are the program's)
            opts = parse(argv)
        except QsubError as err:
            raise _qsub_refusal(err.message) from None
        check_command(command, opts.script_path, opts.script_args)
        if opts.help or opts.sync:
            # (-sync y would make run_job wait: drmaa_wait and drmaa_synchronize do that)
            raise _qsub_refusal("-help and -sync are not available in a native "
                                "specification")
        opts.env.update(env)
        description = job_description(opts)
        try:
            if opts.jsv:
                description["opts"] = client_jsvs(opts.jsv, description["opts"],
                                                  self.client, program="drmaa")
            check_requested_hosts(self.client, opts)
            reply = self.client.request("submit", {"user": self.client.user.to_dict(),
                                                   "jobs": checked_jobs([description])})
        except ClientError as err:
            raise client_failure(err) from None
        if reply.get("verification"):  # -w v: verified, not submitted
            raise _qsub_refusal(reply["verification"][0])
        job_id = int(reply["job_ids"][0])
        array = description["opts"].get("array")
        if not array:
            return job_id, [1]
        first, last, step = array
        return job_id, list(range(first, last + 1, step))

    def tasks(self, job_id: int) -> list[dict[str, Any]] | None:
        try:
            reply = self.client.jobs([job_id], include_finished=True)
        except ClientError as err:
            raise client_failure(err, errors.INTERNAL_ERROR) from None
        if not reply.get("jobs"):
            return None
        return list(reply.get("tasks") or [])

    def control(self, action: int, job_id: int, task_id: int | None) -> None:
        try:
            if action in (SUSPEND, RESUME):
                self._qmod(action, job_id, task_id)
                return
            targets: list[dict[str, Any]] = [{"job_id": job_id} if task_id is None else
                                             {"job_id": job_id,
                                              "tasks": [[task_id, task_id, 1]]}]
            if action == TERMINATE:
                results = self.client.delete(targets)
            else:
                change = self.client.hold if action == HOLD else self.client.release
                results = change(targets, "u")
        except ClientError as err:
            raise client_failure(err, errors.INTERNAL_ERROR) from None
        for result in results:
            if result.get("result") == "unknown":
                raise DrmaaError(errors.INVALID_JOB, errors.NO_SUCH_JOB)
            if result.get("result") in ("denied", "force_denied"):
                raise DrmaaError(errors.AUTH_FAILURE, f"{self.client.user.name} - not "
                                 f"allowed to change job {job_id}")

    def _qmod(self, action: int, job_id: int, task_id: int | None) -> None:
        item: dict[str, Any] = {"action": "suspend" if action == SUSPEND else "unsuspend",
                                "scope": "job", "ref": str(job_id)}
        if task_id is not None:
            item["tasks"] = [[task_id, task_id, 1]]
        reply = self.client.request("qmod", {"user": self.client.user.to_dict(),
                                             "items": [item], "force": False})
        for answer in reply.get("answers") or []:
            text = answer.get("text", "")
            if text.startswith(_NOT_INVALID):
                raise DrmaaError(errors.INVALID_JOB, errors.NO_SUCH_JOB)
            if _NOT_STARTED in text:
                raise DrmaaError(errors.SUSPEND_INCONSISTENT_STATE if action == SUSPEND
                                 else errors.RESUME_INCONSISTENT_STATE, text)
            if action == RESUME and _ALREADY_UNSUSPENDED in text:
                raise DrmaaError(errors.RESUME_INCONSISTENT_STATE, text)
            if answer.get("error"):
                raise DrmaaError(errors.AUTH_FAILURE if "no permission" in text
                                 else errors.INTERNAL_ERROR, text)
