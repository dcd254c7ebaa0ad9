"""The ``-help`` texts of qsub, qrsh, qlogin, qsh and qalter, as Grid Engine 8.1.9 prints them
(tests/data/reference/help/): one table of the option and glossary lines they share, and
the order each command lists them in. 8.1.9's lists name a few options its commands refuse
(``-Ap``, ``-astnode``, ``-mattr``, ...); ours do as 8.1.9 does (docs/compatibility.md,
"The whole surface"). Imported only for ``-help``."""
from __future__ import annotations

LINES = {
    '-a': '   [-a date_time]                           request a start time',
    '-ac': '   [-ac context_list]                       add context variable(s)',
    '-Ap': '   [-Ap fname]                              add a new parallel environment from file',
    '-astnode': '   [-astnode node_shares_list]              add sharetree node(s)',
    '-at': '   [-at thread_name]                        add/start qmaster thread',
    '-A': '   [-A account_string]                      account string in accounting record',
    '-b': '   [-b y[es]|n[o]]                          handle command as binary',
    '-binding': '   [-binding [env|pe|set] exp|lin|str]      binds job to processor cores',
    '-c': '   [-c ckpt_selector]                       define type of checkpointing for job',
    '-cwd': '   [-cwd]                                   use current working directory',
    '-C': '   [-C directive_prefix]                    define command prefix for job script',
    '-dc': '   [-dc simple_context_list]                delete context variable(s)',
    '-dul': '   [-dul listname_list]                     delete userset list(s) completely',
    '-e': '   [-e path_list]                           specify standard error stream path(s)',
    '-h': '   [-h]                                     place user hold on job',
    '-hard': '   [-hard]                                  consider following requests "hard"',
    '-he': '   [-he  y[es]|n[o]]                        enable/disable hard error handling',
    '-help': '   [-help]                                  print this help',
    '-hold_jid': '   [-hold_jid job_identifier_list]          define jobnet interdependencies',
    '-hold_jid_ad': '   [-hold_jid_ad job_identifier_list]       define jobnet array interdependencies',
    '-i': '   [-i file_list]                           specify standard input stream file(s)',
    '-j': '   [-j y[es]|n[o]]                          merge stdout and stderr stream of job',
    '-js': '   [-js job_share]                          share tree or functional job share',
    '-jsv': '   [-jsv jsv_url]                           job submission verification script to be used',
    '-l': '   [-l resource_list]                       request the given resources',
    '-M': '   [-M mail_list]                           notify these e-mail addresses',
    '-m': '   [-m mail_options]                        define mail notification events',
    '-masterq': '   [-masterq wc_queue_list]                 bind master task to queue(s)',
    '-mattr': '   [-mattr obj_nm attr_nm val obj_id_list]  modify an attribute (or element in a sublist) of an object',
    '-N': '   [-N name]                                specify job name',
    '-notify': '   [-notify]                                notify job before killing/suspending it',
    '-now': '   [-now y[es]|n[o]]                        start job immediately or not at all',
    '-o': '   [-o path_list]                           specify standard output stream path(s)',
    '-ot': "   [-ot tickets]                            set job's override tickets",
    '-P': "   [-P project_name]                        set job's project",
    '-p': "   [-p priority]                            define job's relative priority",
    '-pe': '   [-pe wc_pe_name slot_range]              request slot range for parallel jobs',
    '-q': '   [-q wc_queue_list]                       bind job to queue(s)',
    '-r': '   [-r y[es]|n[o]]                          define job as (not) restartable',
    '-sc': '   [-sc context_list]                       set job context (replaces old context)',
    '-shell': '   [-shell y[es]|n[o]]                      start command with or without wrapping <loginshell> -c',
    '-soft': '   [-soft]                                  consider following requests as soft',
    '-srqs': '   [-srqs [rqs_list]]                       show resource quota set(s)',
    '-sync': '   [-sync y[es]|n[o]]                       wait for job to end and return exit code',
    '-S': '   [-S path_list]                           command interpreter to be used',
    '-t': '   [-t task_id_range]                       create a job-array with these tasks',
    '-v': '   [-v variable_list]                       export these environment variables',
    '-verify': '   [-verify]                                do not submit, just verify',
    '-V': '   [-V]                                     export all environment variables',
    '-wd': '   [-wd working_directory]                  use working_directory',
    '-@': '   [-@ file]                                read commandline input from file',
    '{command}': '   [{command|-} [command_args]]',
    'account_string': 'account_string          account_name',
    'complex_list': 'complex_list            complex[,complex,...]',
    'context_list': 'context_list            variable[=value][,variable[=value],...]',
    'ckpt_selector': "ckpt_selector           `n' `s' `m' `x' `r' <interval>",
    'date_time': 'date_time               [[CC]YY]MMDDhhmm[.SS]',
    'job_identifier_list': 'job_identifier_list     {job_id|job_name|reg_exp}[,{job_id|job_name|reg_exp},...]',
    'jsv_url': 'jsv_url                 [script:][username@]path',
    'listname_list': 'listname_list           listname[,listname,...]',
    'rqs_list': 'rqs_list                rqs_name[,rqs_name,...]',
    'mail_address': 'mail_address            username[@host]',
    'mail_list': 'mail_list               mail_address[,mail_address,...]',
    'mail_options': "mail_options            `e' `b' `a' `n' `s'",
    'node_path': 'node_path               [/]node_name[[/.]node_name...]',
    'node_shares_list': 'node_shares_list        node_path=shares[,node_path=shares,...]',
    'working_directory': 'working_directory       path',
    'path_list': 'path_list               [host:]path[,[host:]path,...]',
    'priority': 'priority                -1023 - 1024',
    'resource_list': 'resource_list           resource[=value][,resource[=value],...]',
    'simple_context_list': 'simple_context_list     variable[,variable,...]',
    'slot_range': 'slot_range              [n[-m]|[-]m] - n,m > 0',
    'task_id_range': "task_id_range           task_id['-'task_id[':'step]]",
    'variable_list': 'variable_list           variable[=value][,variable[=value],...]',
    'obj_nm': 'obj_nm                  "queue"|"exechost"|"pe"|"ckpt"|"hostgroup"|"resource_quota"',
    'attr_nm': 'attr_nm                 (see man pages)',
    'obj_id_list': 'obj_id_list             objectname [ objectname ...]',
    'wc_cqueue': 'wc_cqueue               wildcard expression matching a cluster queue',
    'wc_host': 'wc_host                 wildcard expression matching a host',
    'wc_hostgroup': 'wc_hostgroup            wildcard expression matching a hostgroup',
    'wc_qinstance': 'wc_qinstance            wc_cqueue@wc_host',
    'wc_qdomain': 'wc_qdomain              wc_cqueue@wc_hostgroup',
    'wc_queue': 'wc_queue                wc_cqueue|wc_qdomain|wc_qinstance',
    'wc_queue_list': 'wc_queue_list           wc_queue[,wc_queue,...]',
    'thread_name': 'thread_name             "scheduler"|"jvm"',
    'exp': 'exp                     explicit:<socket>,<core>[:...]',
    'lin': 'lin                     linear[:<amount>[:<socket>,<core>]]',
    'str': 'str                     striding:<amount>:<stepsize>[:<socket>,<core>]',
    '-inherit': '   [-inherit]                               inherit existing job environment JOB_ID for rsh',
    '-nostdin': '   [-nostdin]                               suppress stdin for rsh',
    '-noshell': '   [-noshell]                               start command without wrapping <loginshell> -c',
    '-pty': '   [-pty y[es]|n[o]]                        start job in a pty',
    '-sss': '   [-sss]                                   show scheduler state',
    '-ackpt': '   [-ackpt ckpt_name]                       add a checkpointing interface definition',
    '-h_qalter': '   [-h hold_list]                           list of hold types concerned',
    '-u': '   [-u user_list]                           specify a list of users',
    '-u_more': '                                            (not allowed in combination with job_task_list)',
    'job_task_list_operand': '   job_task_list                            jobids (and taskids) of jobs to be altered',
    'hold_list': "hold_list               `n' `u' `s' `o' `U' `S' `O'",
    'job_task_list': 'job_task_list           job_tasks[,job_tasks,...]',
    'job_tasks': "job_tasks               [job_id['.'task_id_range]|job_name|pattern][' -t 'task_id_range]",
    'user_list': 'user_list               user[,user,...]',
}

# the keys of LINES in each command's order; "" is the empty line before the glossary
_ORDER_QSUB = (
    '-a -ac -Ap -astnode -at -A -b -binding -c -cwd -C -dc -dul -e -h -hard -he -help '
    '-hold_jid -hold_jid_ad -i -j -js -jsv -l -M -m -masterq -mattr -N -notify -now -o -ot '
    '-P -p -pe -q -r -sc -shell -soft -srqs -sync -S -t -v -verify -V -wd -@ {command} | '
    'account_string complex_list context_list ckpt_selector date_time job_identifier_list '
    'jsv_url listname_list rqs_list mail_address mail_list mail_options node_path '
    'node_shares_list working_directory path_list priority resource_list '
    'simple_context_list slot_range task_id_range variable_list obj_nm attr_nm obj_id_list '
    'wc_cqueue wc_host wc_hostgroup wc_qinstance wc_qdomain wc_queue wc_queue_list '
    'thread_name exp lin str'
)
_ORDER_QRSH = (
    '-ac -astnode -A -b -cwd -dc -h -hard -he -help -hold_jid -hold_jid_ad -inherit -js '
    '-jsv -l -M -m -masterq -mattr -N -nostdin -noshell -notify -now -ot -p -pe -pty -q -sc '
    '-soft -srqs -sss -v -verify -V -wd -@ | account_string complex_list context_list '
    'job_identifier_list jsv_url rqs_list mail_address mail_list mail_options node_path '
    'node_shares_list working_directory priority resource_list simple_context_list '
    'slot_range variable_list obj_nm attr_nm obj_id_list wc_cqueue wc_host wc_hostgroup '
    'wc_qinstance wc_qdomain wc_queue wc_queue_list'
)
_ORDER_QLOGIN = (
    '-ac -astnode -A -dc -hard -he -help -js -l -M -m -masterq -mattr -N -now -ot -p -pe -q '
    '-sc -soft -srqs -verify -@ | account_string complex_list context_list rqs_list '
    'mail_address mail_list mail_options node_path node_shares_list priority resource_list '
    'simple_context_list slot_range obj_nm attr_nm obj_id_list wc_cqueue wc_host '
    'wc_hostgroup wc_qinstance wc_qdomain wc_queue wc_queue_list'
)
_ORDER_QSH = (
    '-ac -astnode -A -cwd -dc -hard -he -help -js -jsv -l -M -m -masterq -N -now -ot -p -pe '
    '-q -sc -soft -srqs -sss -S -v -verify -V -wd -@ | account_string complex_list '
    'context_list jsv_url rqs_list mail_address mail_list mail_options node_path '
    'node_shares_list working_directory path_list priority resource_list '
    'simple_context_list slot_range variable_list wc_cqueue wc_host wc_hostgroup '
    'wc_qinstance wc_qdomain wc_queue wc_queue_list'
)
_ORDER_QALTER = (
    '-a -ac -ackpt -astnode -A -binding -c -cwd -dc -dul -e -h_qalter -hard -he -help '
    '-hold_jid -hold_jid_ad -i -j -js -l -M -m -masterq -N -notify -o -ot -P -p -pe -q -r '
    '-sc -soft -srqs -S -u -u_more -v -verify -V -wd job_task_list_operand | account_string '
    'complex_list context_list ckpt_selector date_time hold_list job_identifier_list '
    'listname_list rqs_list mail_address mail_list mail_options node_path node_shares_list '
    'working_directory path_list priority resource_list simple_context_list slot_range '
    'job_task_list job_tasks task_id_range user_list variable_list wc_cqueue wc_host '
    'wc_hostgroup wc_qinstance wc_qdomain wc_queue wc_queue_list exp lin str'
)
ORDERS = {"qsub": _ORDER_QSUB, "qalter": _ORDER_QALTER, "qrsh": _ORDER_QRSH, "qlogin": _ORDER_QLOGIN, "qsh": _ORDER_QSH}


def usage(prog: str) -> str:
    """``prog -help``: the version line, the usage line, the options and the glossary."""
    keys = ORDERS[prog].split(" ")
    lines = ["" if key == "|" else LINES[key] for key in keys]
    operand = " job_task_list" if prog == "qalter" else ""
    return "\n".join(["SGE 8.1.9", f"usage: {prog} [options]{operand}", *lines]) + "\n"
