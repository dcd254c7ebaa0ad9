"""Checkpointing environments (checkpoint(5)): the object ``qsub -ckpt`` names and a
queue's ``ckpt_list`` lists, telling how a job is checkpointed, migrated and restarted.

Owns the attributes in Grid Engine's order (values in a column 19 characters from the
line start), their checks in 8.1.9's words (tests/data/reference/ckpt/):

- ``ckpt_name``: the object name rules (``Keyword ("TEMPLATE") not allowed as
  objectname``), checked as qconf reads the file and by the qmaster (``name_refusal``);
- ``interface``: one of ``INTERFACES`` in any case, kept as written
  (``no valid checkpoint interface foo``);
- ``signal``: ``none``, a number, or a signal name without ``SIG`` in any case
  (``"SIGUSR2" is not a signal string (like HUP, INT, WINCH, ..)``);
- ``when``: letters of ``xsmr`` (shown in that order, each once) or ``n`` alone. 8.1.9
  reads it when the qmaster gets the object, so a bad one is the qmaster's refusal
  (``ckpt_problem``: ``Invalid "when" attribute for ckpt "c3"``) without the file
  reader's lines, and stores it canonical (``canonical``); the same reading serves
  ``qsub -c`` (``parse_when``).

``ckpt_dir`` and the commands are strings 8.1.9 does not check.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from common.conf_values import check_string, get
from common.conffile import ConfError
from common.objects_conf.base import Attr, ObjectKind
from common.objects_conf.project import name_problem

# 8.1.9 accepts these (any case); it refuses cray-ckpt although checkpoint(5) names it
INTERFACES = ("userdefined", "application-level", "transparent", "hibernator", "cpr")
# sge_signal.c's names, as sge_sys_str2signal compares them (case-insensitive, no SIG)
SIGNAL_NAMES = ("HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "IOT", "FPE", "KILL", "BUS",
                "SEGV", "SYS", "PIPE", "ALRM", "TERM", "URG", "STOP", "TSTP", "CONT",
                "CHLD", "TTIN", "TTOU", "IO", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH",
                "USR1", "USR2")
# the when letters in the order 8.1.9 shows them: on suspend (x), at the execd's
# shutdown (s), every min_cpu_interval (m), when the job is rescheduled (r)
WHEN_ORDER = "xsmr"
NO_CHECKPOINT = "n"


def check_interface(name: str, value: str) -> str:
    text = check_string(name, value)
    if text.lower() not in INTERFACES:
        raise ConfError(f"no valid checkpoint interface {text}")
    return text


def signal_number(text: str) -> int | None:
    """The signal ``text`` names (``usr2``, ``TERM``, ``12``), None for ``none``; a
    ValueError for what 8.1.9 refuses."""
    if text.lower() == "none":
        return None
    if text.isdigit():
        return int(text)
    import signal  # (only the execd's use of the value needs the numbers)
    if text.upper() in SIGNAL_NAMES:
        return int(getattr(signal, "SIG" + text.upper()))
    raise ValueError(text)


def check_signal(name: str, value: str) -> str:
    text = check_string(name, value)
    try:
        signal_number(text)
    except ValueError:
        raise ConfError(f'"{text}" is not a signal string (like HUP, INT, WINCH, ..)'
                        ) from None
    return text


def parse_when(text: str) -> str | None:
    """The canonical ``when`` (``mxsr`` -> ``xsmr``, ``xx`` -> ``x``), or None where
    8.1.9 refuses it (another letter, ``n`` with others, upper case)."""
    letters = set(text)
    if not text or not letters <= set(WHEN_ORDER + NO_CHECKPOINT):
        return None
    if NO_CHECKPOINT in letters:
        return NO_CHECKPOINT if letters == {NO_CHECKPOINT} else None
    return "".join(c for c in WHEN_ORDER if c in letters)


def canonical(pairs: Iterable[Sequence[str]]) -> list[list[str]]:
    """``pairs`` with ``when`` as 8.1.9 stores it (``sx`` -> ``xs``), once
    ``ckpt_problem`` has found nothing wrong."""
    return [[k, (parse_when(v) or v) if k == "when" else v] for k, v in pairs]


CKPT = ObjectKind(
    name="ckpt",
    key="ckpt_name",
    width=18,
    attrs=(
        Attr("ckpt_name", "template", check_string),
        Attr("interface", "userdefined", check_interface),
        Attr("ckpt_command", "none", check_string),
        Attr("migr_command", "none", check_string),
        Attr("restart_command", "none", check_string),
        Attr("clean_command", "none", check_string),
        Attr("ckpt_dir", "/tmp", check_string),
        Attr("signal", "none", check_signal),
        Attr("when", "sx", check_string),
    ),
)


def name_refusal(pairs: Iterable[Sequence[str]]) -> str | None:
    """8.1.9's refusal of the object's name (checked as qconf reads the file, and by the
    qmaster), or None."""
    return name_problem(get(list(pairs), "ckpt_name", ""))


def ckpt_problem(pairs: Iterable[Sequence[str]]) -> str | None:
    """The qmaster's refusal of a whole checkpointing environment, or None."""
    pairs = list(pairs)
    problem = name_refusal(pairs)
    if problem:
        return problem
    if parse_when(get(pairs, "when", "sx")) is None:
        return f'Invalid "when" attribute for ckpt "{get(pairs, "ckpt_name", "")}"'
    return None


# ---- what this version carries out ---------------------------------------------------
# A checkpointed job runs only in queues whose ckpt_list names its environment. The
# shepherd runs its ckpt_command and sends its signal every checkpoint interval (``m``:
# the larger of the queue's min_cpu_interval and ``qsub -c interval``); a suspension
# (``x``) migrates it: the migr_command and the signal, the kill if it is still there
# the queue's notify time later, then the job is rescheduled and starts again with
# RESTARTED=1 (execd.control, qmaster.queue_control); the clean_command runs once the job
# has ended (not when migrated); a userdefined restart_command runs instead of the job
# when it starts again (qmaster.start_spec; application-level has none: 8.1.9 ignores it
# there); with ``r`` a job of a lost host is rescheduled as a rerunnable one
# (qmaster.lost_hosts); with ``s`` the execd's shutdown migrates it (execd.service). Not
# carried out: the other interfaces, whose jobs are refused (``unsupported``) rather than
# run without them.
# transparent: the job's own checkpoint library does the work when signalled and when
# started again, so it is carried out as application-level (no restart_command)
SUPPORTED_INTERFACES = ("userdefined", "application-level", "transparent")


def effective_when(pairs: Iterable[Sequence[str]], occasion: str | None) -> str:
    """The ``when`` letters a job has: its ``qsub -c`` letters, else its environment's."""
    return parse_when(occasion or "") or parse_when(get(list(pairs), "when", "sx")) or ""


def unsupported(pairs: Iterable[Sequence[str]], occasion: str | None) -> str | None:
    """What of the environment ``pairs`` (with ``qsub -c occasion``) this version does
    not carry out, worded for a refusal, or None: only the interfaces that need an
    operating system's checkpointing (hibernator, cpr); every ``when`` letter is carried
    out."""
    interface = get(list(pairs), "interface", "userdefined")
    if interface.lower() not in SUPPORTED_INTERFACES:
        return (f'its interface "{interface}" (only userdefined, application-level and '
                "transparent)")
    return None


def migrates_on_suspend(pairs: Iterable[Sequence[str]], occasion: str | None) -> bool:
    """``x``: a job suspended (qmod, a queue's suspension, thresholds, subordination, a
    calendar) is aborted and migrated instead (sge_ckpt(5))."""
    return "x" in effective_when(pairs, occasion)


def restart_argv(pairs: Iterable[Sequence[str]], variables: dict[str, str]) -> list[str] | None:
    """What a restarted job of a ``userdefined`` environment runs instead of itself: the
    ``restart_command``'s words with ``$job_id $job_name $job_owner $host $queue
    $ckpt_dir`` expanded; None for none, or another interface (checkpoint(5))."""
    pairs = list(pairs)
    command = get(pairs, "restart_command", "none").strip()
    if get(pairs, "interface", "").lower() != "userdefined" or command.lower() == "none":
        return None
    known = {**variables, "ckpt_dir": get(pairs, "ckpt_dir", "/tmp")}
    names = sorted(known, key=len, reverse=True)
    words = []
    for word in command.split():
        for name in names:
            word = word.replace(f"${name}", known[name])
        words.append(word)
    return words
