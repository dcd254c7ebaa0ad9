"""What the shepherd does to a running job, and when: the pure core of job control.

Inputs are the job's limits and methods (from its spec), the requests of the execd
(``suspend``, ``resume``, ``terminate``, ``kill``) and, at each tick, the time since the
start and the usage of the job's whole process tree. Output: ``Step`` lists, each a signal
for the whole tree or a method command to run. No clock, no processes here.

Grid Engine's rules (queue_conf(5) "RESOURCE LIMITS", qsub(1) ``-notify``):

- ``h_rt``, ``h_cpu``, ``h_vmem`` exceeded: SIGKILL.
- ``s_rt`` exceeded: SIGUSR1, then the kill after the queue's ``notify`` time.
- ``s_cpu``, ``s_vmem`` exceeded: SIGXCPU (once; the job may go on).
- (the ``-notify`` warnings are execd_params NOTIFY_SUSP and NOTIFY_KILL when set, none
  for ``none``: the spec's ``notify_signals``)
- suspend: SIGUSR1 first for a ``-notify`` job, the ``suspend_method`` (default SIGSTOP)
  ``notify`` seconds later; resume: ``resume_method`` (default SIGCONT) at once.
- terminate (qdel): SIGUSR2 first for a ``-notify`` job, then ``terminate_method``
  (default SIGKILL) after ``notify`` seconds.
- a method is a signal name (``SIGTERM``), a number, or an absolute path with arguments,
  run with ``$host $job_owner $job_id $job_name $queue $job_pid`` expanded.

Checkpointing (checkpoint(5), the spec's ``ckpt``, present for a job of ``qsub -ckpt``):
with ``m`` in its ``when``, every ``interval`` seconds the ``ckpt_command`` runs and the
``signal`` goes to the job; ``migrate`` (the qmaster migrates the job: ``x``) runs the
``migr_command`` and sends the ``signal``, and kills the job ``notify`` seconds later if it
is still there (at once when there is neither). The commands' ``$ckpt_dir`` and
``$ckpt_signal`` are expanded too. The ``clean_command`` runs once the job has ended,
unless it was migrated (``clean_step``).
"""
from __future__ import annotations

import signal
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from common import limits as limit_table
from execd.jobdir import expand_words

DEFAULT_METHOD = {"suspend": signal.SIGSTOP, "resume": signal.SIGCONT,
                  "terminate": signal.SIGKILL}
NOTIFY_SIGNAL = {"suspend": signal.SIGUSR1, "terminate": signal.SIGUSR2}
# the resources whose limits the shepherd checks against the measured process tree
# (wall clock, cpu seconds, virtual memory); the others are setrlimit's (execd.rlimits)
MEASURED = ("rt", "cpu", "vmem")
METHOD_VARIABLES = ("host", "job_owner", "job_id", "job_name", "queue", "job_pid")
CKPT_VARIABLES = METHOD_VARIABLES + ("ckpt_dir", "ckpt_signal")
MIGRATED = "migrate"  # ended_by of a job migrated (it runs again: no clean_command)


@dataclass(frozen=True)
class Step:
    """One thing to do now: send ``signum`` to the job's processes, or run ``command``."""

    signum: int = 0
    command: tuple[str, ...] = ()
    reason: str = ""  # why: "h_rt", "s_cpu", "terminate", ...


def parse_method(text: str | None, action: str) -> int | tuple[str, ...]:
    """A method as a signal number, or the command's argv (variables not yet expanded).

    Refusals are not possible here (the queue configuration was checked); a method that
    is neither a known signal nor an absolute path means the default signal.
    """
    if not text:
        return DEFAULT_METHOD[action]
    text = text.strip()
    if text.startswith("/"):
        return tuple(text.split())
    return signal_number(text) or DEFAULT_METHOD[action]


def signal_number(text: str) -> int:
    """``SIGTERM``, ``TERM`` or ``15`` -> 15; 0 when it names no signal."""
    text = text.strip().upper()
    if text.isdigit():
        number = int(text)
        return number if 0 < number < signal.NSIG else 0
    name = text if text.startswith("SIG") else f"SIG{text}"
    found = getattr(signal.Signals, name, None) if name.isidentifier() else None
    return int(found) if found is not None else 0


def expand_method(argv: tuple[str, ...], variables: Mapping[str, str]) -> tuple[str, ...]:
    """``$host`` ... ``$job_pid`` replaced in each word; other ``$`` words stay."""
    known = {name: variables[name] for name in METHOD_VARIABLES if name in variables}
    return tuple(expand_words(list(argv), known))


@dataclass
class Controller:
    """The job's limits, methods and pending timed steps, advanced by ``tick``."""

    limits: Mapping[str, float]
    notify_seconds: float
    notify_job: bool
    methods: Mapping[str, str | None]
    variables: Mapping[str, str] = field(default_factory=dict)
    warned: set[str] = field(default_factory=set)
    ended_by: str = ""                       # the limit or request that ended the job
    suspended: bool = False
    ckpt: Mapping[str, str] | None = None    # the job's checkpointing (spec "ckpt")
    # execd_params NOTIFY_SUSP / NOTIFY_KILL: action -> signal (0: none sent)
    notify_signals: Mapping[str, int] = field(default_factory=dict)
    _timers: list[tuple[float, str]] = field(default_factory=list)  # (due, action)

    def __post_init__(self) -> None:
        interval = self.checkpoint_interval
        if interval:  # the first periodic checkpoint one interval after the start
            self._timers.append((interval, "checkpoint"))

    @property
    def checkpoint_interval(self) -> float:
        """Seconds between periodic checkpoints (``m``); 0: none."""
        if not self.ckpt or "m" not in self.ckpt.get("when", ""):
            return 0.0
        try:
            return max(float(self.ckpt.get("interval") or 0), 0.0)
        except ValueError:
            return 0.0

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], variables: Mapping[str, str]) -> "Controller":
        """From a spec as ``execd.jobdir.read_spec`` gives it (the record's defaults for
        absent optional fields)."""
        return cls(limits={name: value for name, value in (spec.get("limits") or {}).items()
                           if name in limit_table.LIMIT_NAMES},
                   notify_seconds=float(spec.get("notify", 60.0)),
                   notify_job=bool(spec.get("notify_job")),
                   methods={a: spec.get(f"{a}_method") for a in DEFAULT_METHOD},
                   variables=variables, ckpt=spec.get("ckpt"),
                   notify_signals=dict(spec.get("notify_signals") or {}))

    # ---- requests of the execd -----------------------------------------------------
    def request(self, action: str, now: float) -> list[Step]:
        """Steps for an execd request at ``now`` (seconds since the job started)."""
        if action == "kill":
            self.ended_by = self.ended_by or "kill"
            return [Step(signal.SIGKILL, reason="kill")]
        if action == "migrate":
            return self._migrate(now)
        if action == "resume":
            self._timers = [t for t in self._timers if t[1] != "suspend"]
            if not self.suspended:
                return []
            self.suspended = False
            return [self._method("resume")]
        if action not in ("suspend", "terminate"):
            return []
        if action == "suspend" and (self.suspended or any(a == "suspend" for _, a in self._timers)):
            return []
        if action == "terminate" and any(a == "terminate" for _, a in self._timers):
            return []
        if self.notify_job and self.notify_seconds > 0:
            self._timers.append((now + self.notify_seconds, action))
            signum = self.notify_signals.get(action, NOTIFY_SIGNAL[action])
            return [Step(int(signum), reason=f"notify {action}")] if signum else []
        return self._due_action(action)

    def _due_action(self, action: str) -> list[Step]:
        if action == "suspend":
            self.suspended = True
            return [self._method("suspend")]
        self.ended_by = self.ended_by or "terminate"
        steps = [self._method("terminate")]
        if self.suspended:  # a stopped job must run to see its signal (SIGKILL needs not)
            steps.append(Step(signal.SIGCONT, reason="terminate"))
        return steps

    # ---- checkpointing -------------------------------------------------------------
    def _ckpt_steps(self, command_key: str, reason: str) -> list[Step]:
        """The environment's command ``command_key`` and its signal, as steps."""
        ckpt = self.ckpt or {}
        steps = []
        command = (ckpt.get(command_key) or "none").strip()
        if command.lower() != "none":
            words = tuple(command.split())
            known = {**self.variables, "ckpt_dir": ckpt.get("ckpt_dir", ""),
                     "ckpt_signal": ckpt.get("signal", "none")}
            known = {name: known[name] for name in CKPT_VARIABLES if name in known}
            steps.append(Step(command=tuple(expand_words(list(words), known)), reason=reason))
        signum = signal_number(ckpt.get("signal") or "")
        if signum:
            steps.append(Step(signum, reason=reason))
        return steps

    def _migrate(self, now: float) -> list[Step]:
        if self.ended_by:
            return []
        self.ended_by = MIGRATED
        steps = self._ckpt_steps("migr_command", "migrate") if self.ckpt else []
        if not steps:
            return [Step(signal.SIGKILL, reason="migrate")]
        self._timers = [t for t in self._timers if t[1] != "checkpoint"]
        self._timers.append((now + self.notify_seconds, "migrated"))
        if self.suspended:  # (a stopped job must run to checkpoint itself)
            steps.append(Step(signal.SIGCONT, reason="migrate"))
        return steps

    def clean_step(self) -> Step | None:
        """The ``clean_command`` to run once the job has ended for good (not when it
        was migrated: it runs again), or None."""
        if self.ended_by == MIGRATED:
            return None
        steps = [st for st in self._ckpt_steps("clean_command", "clean") if st.command]
        return steps[0] if steps else None

    def _method(self, action: str) -> Step:
        method = parse_method(self.methods.get(action), action)
        if isinstance(method, int):
            return Step(method, reason=action)
        return Step(command=expand_method(method, self.variables), reason=action)

    # ---- the clock and the usage ---------------------------------------------------
    def tick(self, now: float, cpu: float, vmem: float) -> list[Step]:
        """Steps due at ``now``: timers that came due and limits just exceeded."""
        steps: list[Step] = []
        due = [t for t in self._timers if t[0] <= now]
        self._timers = [t for t in self._timers if t[0] > now]
        for _, action in sorted(due):
            if action == "s_rt":
                steps += self._kill("s_rt")
            elif action == "checkpoint":
                steps += self._ckpt_steps("ckpt_command", "checkpoint")
                self._timers.append((now + self.checkpoint_interval, "checkpoint"))
            elif action == "migrated":  # the migration command left the job running
                steps.append(Step(signal.SIGKILL, reason="migrate"))
            else:
                steps += self._due_action(action)
        measured = dict(zip(MEASURED, (now, cpu, vmem)))  # of the whole process tree
        for kind, value in measured.items():
            hard_name, soft_name = limit_table.hard(kind), limit_table.soft(kind)
            hard = self.limits.get(hard_name)
            if hard is not None and value > hard:
                steps += self._kill(hard_name)
            soft = self.limits.get(soft_name)
            if soft is not None and value > soft and soft_name not in self.warned:
                self.warned.add(soft_name)
                steps += self._soft(kind, now)
        return steps

    def _soft(self, kind: str, now: float) -> list[Step]:
        if kind == "rt":  # warned with SIGUSR1, killed after the queue's notify time
            self._timers.append((now + self.notify_seconds, limit_table.soft("rt")))
            return [Step(signal.SIGUSR1, reason=limit_table.soft("rt"))]
        return [Step(signal.SIGXCPU, reason=limit_table.soft(kind))]

    def _kill(self, reason: str) -> list[Step]:
        if self.ended_by and self.ended_by != "terminate":
            return []  # killed already; the tree is on its way out
        self.ended_by = reason
        return [Step(signal.SIGKILL, reason=reason)]

    def next_due(self) -> float | None:
        """When the next timer is due (seconds since start), None without timers."""
        return min((t[0] for t in self._timers), default=None)
