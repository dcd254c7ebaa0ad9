"""The surface table's rows of sge_conf(5) (docs/compatibility.md, "object sge_conf",
"object qmaster_params", "object execd_params"): every parameter of 8.1.9's global
configuration and every key of our tables has a row, and each row says what our qconf
check does: a `refused` row's parameter refuses a value other than the one it takes,
every other row's takes a value other than its default (in-process, the check qconf
-mconf and -Mconf run)."""
from __future__ import annotations

from pathlib import Path

import pytest

from common import conf_params
from common.conffile import ConfError
from common.objects_conf.base import normalize
from common.objects_conf.cluster import GLOBAL_CONF, LOCAL_PARAMS
from tests.surface_table import read_surface

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "reference"
DEFAULTS = REFERENCE / "qconf-sconf.global.default.txt"
TABLE = read_surface()

# a value other than the default for each parameter (refused rows: one that is refused)
OTHER = {
    "execd_spool_dir": "/var/spool/other", "mailer": "/usr/sbin/sendmail",
    "xterm": "/usr/local/bin/xterm", "load_sensor": "/usr/local/sensor.sh",
    "prolog": "/usr/local/prolog.sh", "epilog": "root@/usr/local/epilog.sh",
    "shell_start_mode": "unix_behavior", "login_shells": "bash,zsh", "min_uid": "500",
    "min_gid": "500", "user_lists": "arusers", "xuser_lists": "badusers",
    "projects": "p1", "xprojects": "p2", "enforce_project": "true", "enforce_user": "true",
    "load_report_time": "00:00:20", "max_unheard": "00:10:00",
    "reschedule_unknown": "00:05:00", "loglevel": "log_info",
    "administrator_mail": "admin@example.org", "set_token_cmd": "/usr/local/token.sh",
    "pag_cmd": "/usr/local/pagsh", "token_extend_time": "24:0:0",
    "shepherd_cmd": "/usr/local/wrap.sh", "qmaster_params": "ENABLE_RESCHEDULE_KILL=true",
    "execd_params": "KEEP_ACTIVE=true",
    "reporting_params": "accounting=true reporting=true flush_time=00:00:05 joblog=true "
                        "sharelog=00:00:00",  # (p-report: any sharelog once merged)
    "finished_jobs": "0", "gid_range": "20000-20100", "qlogin_command": "/usr/bin/ssh -X",
    "qlogin_daemon": "/usr/sbin/sshd -i", "rlogin_command": "/usr/bin/ssh",
    "rlogin_daemon": "/usr/sbin/sshd -i", "rsh_command": "/usr/bin/ssh",
    "rsh_daemon": "/usr/sbin/sshd -i", "max_aj_instances": "10", "max_aj_tasks": "100",
    "max_u_jobs": "5", "max_jobs": "50", "auto_user_oticket": "10", "auto_user_fshare": "5",
    "auto_user_default_project": "p1", "auto_user_delete_time": "0",
    "delegated_file_staging": "true", "reprioritize": "1", "jsv_url": "/usr/local/jsv.sh",
    "jsv_allowed_mod": "ac,h,N", "max_advance_reservations": "5",
    "libjvm_path": "/usr/lib/jvm/libjvm.so", "additional_jvm_args": "-Xmx256m",
}
SAMPLE = {"bool": "true", "int": "5", "time": "0:0:5", "memory": "1M", "signal": "HUP",
          "text": "tmp_free"}


def reference_parameters() -> list[str]:
    text = DEFAULTS.read_text().replace("\\\n", " ")
    return [line.split()[0] for line in text.splitlines()[1:] if line.strip()]


def test_every_parameter_and_key_has_a_row() -> None:
    rows = TABLE[("object", "sge_conf")]
    wanted = set(reference_parameters()) | {a.name for a in GLOBAL_CONF.attrs} | LOCAL_PARAMS
    assert sorted(wanted - set(rows)) == []
    assert sorted(set(rows) - wanted) == []
    for attr, keys in conf_params.TABLES.items():
        rows = TABLE[("object", attr)]
        assert sorted({k.name for k in keys} ^ set(rows)) == [], attr


@pytest.mark.parametrize("name", sorted(TABLE[("object", "sge_conf")]))
def test_a_refused_parameter_is_refused_and_another_takes_effect(name: str) -> None:
    row = TABLE[("object", "sge_conf")][name]
    default = next((a.default for a in GLOBAL_CONF.attrs if a.name == name), None)
    assert OTHER[name] != default
    if row.state == "refused":
        with pytest.raises(ConfError):
            normalize(GLOBAL_CONF, [[name, OTHER[name]]])
        if default is not None:  # (the default itself is taken)
            normalize(GLOBAL_CONF, [[name, default]])
    else:
        normalize(GLOBAL_CONF, [[name, OTHER[name]]])


@pytest.mark.parametrize("attr,key", [(attr, key) for attr, keys in conf_params.TABLES.items()
                                      for key in keys])
def test_a_refused_key_is_refused_and_another_takes_effect(attr: str,
                                                           key: conf_params.Key) -> None:
    row = TABLE[("object", attr)][key.name]
    assert (row.state == "refused") == bool(key.refused), row
    value = SAMPLE[key.type]
    if key.refused:
        if value.lower() == (key.accepted or "").lower():
            value = "false" if value == "true" else "true"
        with pytest.raises(ConfError, match="is not supported"):
            normalize(GLOBAL_CONF, [[attr, f"{key.name}={value}"]])
        if key.accepted is not None:
            normalize(GLOBAL_CONF, [[attr, f"{key.name}={key.accepted}"]])
    else:
        assert value != key.default
        normalize(GLOBAL_CONF, [[attr, f"{key.name}={value}"]])
