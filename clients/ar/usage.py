"""The usage texts of qrsub, qrstat and qrdel, exactly as 8.1.9 prints them for
``-help`` (stdout, exit 0) and before ``ERROR! no option argument`` (stderr, exit 1):
tests/data/reference/ar/*-help.out. The version line is 8.1.9's, as the other
commands' usage texts (clients.jobctl.usage_text)."""

QRSUB_USAGE = (
    'SGE 8.1.9\n'
    'usage: qrsub [options]\n'
    '   [-a date_time]                           request a start time\n'
    '   [-astnode node_shares_list]              add sharetree node(s)\n'
    '   [-A account_string]                      account string in accounting record\n'
    '   [-d time]                                duration of time window\n'
    '   [-dul listname_list]                     delete userset list(s) completely\n'
    '   [-e date_time]                           request an end time\n'
    '   [-help]                                  print this help\n'
    '   [-l resource_list]                       request the given resources\n'
    '   [-M mail_list]                           notify these e-mail addresses\n'
    '   [-m mail_options]                        define mail notification events\n'
    '   [-masterq wc_queue_list]                 bind master task to queue(s)\n'
    '   [-N name]                                specify job name\n'
    '   [-now y[es]|n[o]]                        consider only interactive queues\n'
    '   [-pe wc_pe_name slot_range]              request slot range for parallel jobs\n'
    '   [-q wc_queue_list]                       print information on given queue\n'
    '   [-u user_list]                           specify a list of users\n'
    '                                            (not allowed in combination with job_task_list)\n'
    '   [-explain]                               show reason for error state\n'
    '\n'
    'account_string          account_name\n'
    'date_time               [[CC]YY]MMDDhhmm[.SS]\n'
    'listname_list           listname[,listname,...]\n'
    'mail_address            username[@host]\n'
    'mail_list               mail_address[,mail_address,...]\n'
    "mail_options            `e' `b' `a' `n' (end, begin, error, no)\n"
    'node_path               [/]node_name[[/.]node_name...]\n'
    'node_shares_list        node_path=shares[,node_path=shares,...]\n'
    'resource_list           resource[=value][,resource[=value],...]\n'
    'slot_range              [n[-m]|[-]m] - n,m > 0\n'
    'user_list               user[,user,...]\n'
    'wc_cqueue               wildcard expression matching a cluster queue\n'
    'wc_host                 wildcard expression matching a host\n'
    'wc_hostgroup            wildcard expression matching a hostgroup\n'
    'wc_qinstance            wc_cqueue@wc_host\n'
    'wc_qdomain              wc_cqueue@wc_hostgroup\n'
    'wc_queue                wc_cqueue|wc_qdomain|wc_qinstance\n'
    'wc_queue_list           wc_queue[,wc_queue,...]\n'
    'time                    hours:minutes:seconds | seconds\n'
)

QRSTAT_USAGE = (
    'SGE 8.1.9\n'
    'usage: qrstat [options]\n'
    '   [-he  y[es]|n[o]]                        enable/disable hard error handling\n'
    '   [-help]                                  print this help\n'
    '   [-terse]                                 tersed output, print only the job-id\n'
    '   [-u user_list]                           all advance reservations of users specified in list\n'
    '   [-xml]                                   display the information in XML-Format\n'
    '\n'
    'user_list               user[,user,...]\n'
)

QRDEL_USAGE = (
    'SGE 8.1.9\n'
    'usage: qrdel [options]\n'
    '   [-f]                                     force action\n'
    '   [-he  y[es]|n[o]]                        enable/disable hard error handling\n'
    '   [-help]                                  print this help\n'
    '   [-u user_list]                           all advance reservations of users specified in list\n'
    '\n'
    'user_list               user[,user,...]\n'
)
