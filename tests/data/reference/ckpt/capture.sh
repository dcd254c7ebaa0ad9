#!/bin/bash
# Captures of Grid Engine 8.1.9's checkpoint(5) objects (qconf -ackpt -Ackpt -mckpt -Mckpt
# -sckpt -sckptl -dckpt) and a queue's ckpt_list. Run as root in the sge-oracle's bench
# cell (SGE_CELL=bench . env.sh, /usr/lib/gridengine first on PATH), in this directory.
# NAME.input is the file given; every object it adds it deletes again.
set -u
cd "$(dirname "$0")"
qconf -sq all.q > /tmp/ckq.txt
# qconf runs $EDITOR as one program: editors that save later than qconf wrote the file
printf '#!/bin/sh\nsleep 1.1; touch "$1"\n' > /tmp/ck-touch; chmod +x /tmp/ck-touch
printf '#!/bin/sh\nsleep 1.1; sed -i "s/^when .*/when xmr/" "$1"\n' > /tmp/ck-when; chmod +x /tmp/ck-when
printf '#!/bin/sh\nsleep 1.1; sed -i "s/^ckpt_name .*/ckpt_name c1x/" "$1"\n' > /tmp/ck-rename; chmod +x /tmp/ck-rename
printf '#!/bin/sh\nsleep 1.1; sed -i "s/^when .*/when q/" "$1"\n' > /tmp/ck-badwhen; chmod +x /tmp/ck-badwhen
run() {  # run NAME command...
    local name=$1; shift
    printf '$ %s\n' "$*" > "$name.cmd"
    "$@" > "$name.out" 2> "$name.err"; echo $? > "$name.rc"
}
ck() {  # ck NAME name interface when signal ckpt_dir [extra line]
    printf 'ckpt_name          %s\ninterface          %s\nckpt_command       none\nmigr_command       none\nrestart_command    none\nclean_command      none\nckpt_dir           %s\nsignal             %s\nwhen               %s\n%s' \
        "$2" "$3" "$6" "$5" "$4" "${7:-}" > "$1.input"
    run "$1" qconf -Ackpt "$1.input"
    if [ "$(cat $1.rc)" = 0 ]; then
        qconf -sckpt "$2" > "$1.shown"; qconf -dckpt "$2" > /dev/null 2>&1
    fi
}
run sckptl-empty qconf -sckptl
run sckpt-missing qconf -sckpt nosuch
run sckpt-noarg qconf -sckpt
run Ackpt-noarg qconf -Ackpt
run dckpt-missing qconf -dckpt nosuch
run mckpt-missing qconf -mckpt nosuch
run Ackpt-nofile qconf -Ackpt /nonexistent/file
EDITOR=true run ackpt-unchanged qconf -ackpt c1
EDITOR=/tmp/ck-touch run ackpt-template qconf -ackpt c1
run sckpt-template qconf -sckpt c1
run sckptl-one qconf -sckptl
EDITOR=/tmp/ck-touch run ackpt-exists qconf -ackpt c1
ck Ackpt-exists-input c1x userdefined sx none /tmp
run sckpt-two qconf -sckpt c1,c1
EDITOR=/tmp/ck-when run mckpt-when qconf -mckpt c1
run sckpt-after-mckpt qconf -sckpt c1
EDITOR=/tmp/ck-badwhen run mckpt-badwhen qconf -mckpt c1
EDITOR=/tmp/ck-rename run mckpt-rename qconf -mckpt c1
run sckptl-after-rename qconf -sckptl
printf 'ckpt_name          c1\ninterface          application-level\nckpt_command       /bin/ck\nmigr_command       none\nrestart_command    none\nclean_command      none\nckpt_dir           /var/tmp\nsignal             usr2\nwhen               r\n' > Mckpt.input
run Mckpt qconf -Mckpt Mckpt.input
run sckpt-after-Mckpt qconf -sckpt c1
printf 'ckpt_name          c9\ninterface          userdefined\nckpt_command       none\nmigr_command       none\nrestart_command    none\nclean_command      none\nckpt_dir           /tmp\nsignal             none\nwhen               s\n' > Mckpt-missing.input
run Mckpt-missing qconf -Mckpt Mckpt-missing.input
# a queue naming checkpoint objects
sed -e 's/^qname .*/qname ck.q/' -e 's/^hostlist .*/hostlist NONE/' -e 's/^ckpt_list .*/ckpt_list nosuch/' /tmp/ckq.txt > Aq-unknown-ckpt.input
run Aq-unknown-ckpt qconf -Aq Aq-unknown-ckpt.input
sed -e 's/^qname .*/qname ck.q/' -e 's/^hostlist .*/hostlist NONE/' -e 's/^ckpt_list .*/ckpt_list c1/' /tmp/ckq.txt > Aq-ckpt.input
run Aq-ckpt qconf -Aq Aq-ckpt.input
run dckpt-referenced qconf -dckpt c1
run mattr-ckpt-unknown qconf -mattr queue ckpt_list nosuch ck.q
run aattr-ckpt-unknown qconf -aattr queue ckpt_list nosuch ck.q
run mattr-ckpt-host qconf -mattr queue ckpt_list c1,[vm=nosuch] ck.q
run dq qconf -dq ck.q
run dckpt qconf -dckpt c1
run dckpt-again qconf -dckpt c1
run dckpt-two qconf -dckpt c1,c2
# the fields
for i in userdefined application-level transparent hibernator cpr cray-ckpt USERDEFINED foo; do
    ck "interface-$i" c2 "$i" sx none /tmp
done
for w in s m x r n sm mxsr xx N S smn a "" ; do ck "when-${w:-empty}" c3 userdefined "$w" none /tmp; done
for sg in none NONE usr1 SIGUSR2 10 TERM 99 foo; do ck "signal-$sg" c4 userdefined sx "$sg" /tmp; done
for d in tmp relative none NONE; do ck "dir-$d" c5 userdefined sx none "/$d"; done
ck dir-rel c5 userdefined sx none relative
ck name-template template userdefined sx none /tmp
ck name-NONE NONE userdefined sx none /tmp
ck name-slash a/b userdefined sx none /tmp
ck name-at a@b userdefined sx none /tmp
ck extra-attr c6 userdefined sx none /tmp 'foo bar
'
printf 'ckpt_name c7\ninterface userdefined\n' > missing-attrs.input
run missing-attrs qconf -Ackpt missing-attrs.input
printf 'ckpt_name          c8\ninterface          userdefined\nckpt_command       /bin/echo $job_id $ckpt_dir $job_pid\nmigr_command       /bin/migr x\nrestart_command    /bin/rst\nclean_command      /bin/cln\nckpt_dir           /tmp\nsignal             none\nwhen               sx\n' > commands.input
run commands qconf -Ackpt commands.input
qconf -sckpt c8 > commands.shown; qconf -dckpt c8 > /dev/null 2>&1
# qsub (as the submit user): an unknown environment; -c without -ckpt
sge_as_user() { runuser -u "${SGE_ORACLE_USER:-sgeuser}" -- "$@"; }
run qsub-ckpt-nosuch sge_as_user qsub -h -ckpt nosuch -b y /bin/true
run qsub-c-without-ckpt sge_as_user qsub -h -c s -b y /bin/true
# -aattr/-mattr/-dattr/-rattr on a checkpointing environment (one scalar value each)
printf 'ckpt_name          c1\ninterface          userdefined\nckpt_command       none\nmigr_command       none\nrestart_command    none\nclean_command      none\nckpt_dir           /tmp\nsignal             none\nwhen               sx\n' > attr-c1.input
qconf -Ackpt attr-c1.input > /dev/null 2>&1
run attr-mattr-when qconf -mattr ckpt when xm c1
run attr-mattr-bad-when qconf -mattr ckpt when q c1
run attr-mattr-signal qconf -mattr ckpt signal usr1 c1
run attr-mattr-nosuch qconf -mattr ckpt nosuch 1 c1
run attr-mattr-missing qconf -mattr ckpt when x nosuch
run attr-aattr-when qconf -aattr ckpt when x c1
run attr-rattr-when qconf -rattr ckpt when m c1
run attr-dattr-when qconf -dattr ckpt when x c1
run attr-mattr-interface qconf -mattr ckpt interface foo c1
run attr-sckpt qconf -sckpt c1
qconf -dckpt c1 > /dev/null 2>&1
