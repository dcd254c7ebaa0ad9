#!/bin/bash
# Captures of Grid Engine 8.1.9's host-local configurations (qconf -aconf/-Aconf/-mconf/
# -Mconf/-sconf/-sconfl/-dconf) in the sge-oracle's bench cell. Run as root with the
# oracle's environment (SGE_CELL=bench, /usr/lib/gridengine first on PATH), in this
# directory. Writes NAME.cmd/.out/.err/.rc (and .editor-received/.editor-writes).
set -u
cd "$(dirname "$0")"
W=/tmp/hcw
mkdir -p $W
cap() {  # cap NAME command...   (the command runs in this directory)
    local name=$1; shift
    printf '$ %s\n' "$*" > "$name.cmd"
    rm -f $W/received
    env "$@" > "$name.out" 2> "$name.err"
    echo $? > "$name.rc"
    [ -f $W/received ] && cp $W/received "$name.editor-received"
    return 0
}
capu() {  # capu NAME command...: as the oracle's submit user (sge_as_user)
    local name=$1; shift
    printf '$ sge_as_user %s\n' "$*" > "$name.cmd"
    sge_as_user "$@" > "$name.out" 2> "$name.err"
    echo $? > "$name.rc"
}
ed() {  # ed NAME TEXT command...: editor writes TEXT
    local name=$1 text=$2; shift 2
    printf '%s' "$text" > $W/writes
    cp $W/writes "$name.editor-writes"
    cap "$name" EDITOR=$W/ed.sh "$@"
}

f() {  # f DIR/NAME TEXT: an input file whose base name is the configuration's
    mkdir -p "files/$(dirname "$1")"; printf '%s' "$2" > "files/$1"
}

# ---- 1. none defined; add one with -aconf; shows and lists
cap sconfl-none qconf -sconfl
cap sconf-vm-none qconf -sconf vm
ed aconf-vm 'mailer                       /bin/mail
' qconf -aconf vm
cap sconf-vm qconf -sconf vm
cap sconfl-vm qconf -sconfl
ed aconf-vm-exists 'mailer                       /bin/mail
' qconf -aconf vm
cap sconf-vm-global qconf -sconf vm,global
cap sconf-global-vm-head qconf -sconf global,vm
cap sconf-vm-nosuch qconf -sconf vm,nosuch
cap sconf-nosuch-vm qconf -sconf nosuch,vm
cap sconf-VM-upper qconf -sconf VM
ed mconf-vm-existing 'mailer                       /usr/bin/mail
xterm                        /usr/bin/xterm
' qconf -mconf vm
cap sconf-vm-after-mconf qconf -sconf vm
cap mconf-vm-keep env EDITOR=$W/ed-keep.sh qconf -mconf vm
cap dconf-vm qconf -dconf vm
cap dconf-vm-again qconf -dconf vm
cap dconf-nosuch qconf -dconf nosuch.invalid
cap dconf-global qconf -dconf global
cap dconf-noarg qconf -dconf
cap aconf-noarg qconf -aconf
cap Aconf-noarg qconf -Aconf

# ---- 2. files: -Aconf/-Mconf (the file's base name is the configuration's)
f Aconf-vm/vm 'mailer                       /bin/mail
'
cap Aconf-vm qconf -Aconf files/Aconf-vm/vm
cap Aconf-vm-exists qconf -Aconf files/Aconf-vm/vm
f Mconf-vm/vm 'xterm                        /usr/bin/xterm
'
cap Mconf-vm qconf -Mconf files/Mconf-vm/vm
cap Mconf-vm-show qconf -sconf vm
cap dconf-vm-2 qconf -dconf vm
cap Mconf-vm-adds qconf -Mconf files/Mconf-vm/vm
cap Mconf-vm-adds-show qconf -sconf vm
cap dconf-vm-3 qconf -dconf vm
cap dconf-localhost-none qconf -dconf localhost
cap Aconf-nofile qconf -Aconf /nonexistent/vm
cap Mconf-nofile qconf -Mconf /nonexistent/vm
f Aconf-nosuch/nosuch.invalid 'mailer                       /bin/mail
'
cap Aconf-nosuch qconf -Aconf files/Aconf-nosuch/nosuch.invalid
cap Mconf-nosuch qconf -Mconf files/Aconf-nosuch/nosuch.invalid
ed aconf-nosuch 'mailer                       /bin/mail
' qconf -aconf nosuch.invalid
ed mconf-nosuch 'mailer                       /bin/mail
' qconf -mconf nosuch.invalid
reset() { qconf -dconf vm > /dev/null 2>&1; qconf -dconf localhost > /dev/null 2>&1; }
reset

# ---- 3. what the qmaster accepts in a local configuration
f Aconf-unknown-attr/vm 'color                        blue
'
cap Aconf-unknown-attr qconf -Aconf files/Aconf-unknown-attr/vm
cap Aconf-unknown-attr-show qconf -sconf vm
reset
f Aconf-bad-time/vm 'load_report_time             abc
'
cap Aconf-bad-time qconf -Aconf files/Aconf-bad-time/vm
cap Aconf-bad-time-show qconf -sconf vm
reset
f Aconf-empty/vm ''
cap Aconf-empty qconf -Aconf files/Aconf-empty/vm
cap Aconf-empty-show qconf -sconf vm
reset
ed mconf-vm-new-empty '' qconf -mconf vm
cap mconf-vm-new-empty-show qconf -sconf vm
reset
f Aconf-localhost/localhost 'mailer                       /bin/mail
'
cap Aconf-localhost qconf -Aconf files/Aconf-localhost/localhost
cap sconfl-localhost qconf -sconfl
cap dconf-localhost qconf -dconf localhost
reset

# ---- 4. each parameter of the global configuration, alone, in a local one (-Aconf),
# with the value the bench cell's global configuration has
qconf -sconf global | tail -n +2 | sed '/^$/d' | sed -e :a -e '/\\$/N; s/\\\n */ /; ta' > $W/global.lines
while read -r name value; do
    f "Aconf-param-$name/vm" "$name $value
"
    cap "Aconf-param-$name" qconf -Aconf "files/Aconf-param-$name/vm"
    cap "Aconf-param-$name-show" qconf -sconf vm
    reset
done < $W/global.lines

# ---- 5. does a local configuration of the qmaster's host change the qmaster's limits?
. /work/shared/tools/sge-oracle/env.sh
f Aconf-vm-max_u_jobs-1/vm 'max_u_jobs                   1
'
cap Aconf-vm-max_u_jobs-1 qconf -Aconf files/Aconf-vm-max_u_jobs-1/vm
sleep 2
capu effect-qsub-1 qsub -h -b y -o /dev/null -e /dev/null /bin/true
capu effect-qsub-2 qsub -h -b y -o /dev/null -e /dev/null /bin/true
sge_as_user qdel -u sgeuser > /dev/null 2>&1
reset

# ---- 6. more forms
cap aconf-vm-keep env EDITOR=$W/ed-keep.sh qconf -aconf vm
cap sconfl-after-aconf-keep qconf -sconfl
reset
ed aconf-vm-localhost 'mailer                       /bin/mail
' qconf -aconf vm,localhost
cap sconfl-two qconf -sconfl
cap sconf-vm-localhost qconf -sconf vm,localhost
cap dconf-vm-localhost qconf -dconf vm,localhost
cap mconf-global-keep env EDITOR=$W/ed-keep.sh qconf -mconf
cap aconf-global qconf -aconf global
f Mconf-vm/vm 'xterm                        /usr/bin/xterm
'
cap Aconf-vm-2 qconf -Aconf files/Mconf-vm/vm
cap Mconf-nofile-existing qconf -Mconf /nonexistent/vm
f Mconf-unknown-attr/vm 'color                        blue
'
cap Mconf-unknown-attr qconf -Mconf files/Mconf-unknown-attr/vm
cap Mconf-unknown-attr-show qconf -sconf vm
reset
f Aconf-two-a/vm 'mailer                       /bin/mail
'
f Aconf-two-b/localhost 'mailer                       /bin/mail
'
cap Aconf-two qconf -Aconf files/Aconf-two-a/vm,files/Aconf-two-b/localhost
cap sconfl-two-2 qconf -sconfl
reset
# -Mconf of the global configuration with a file holding one parameter (restored after)
qconf -sconf global | tail -n +2 | sed '$d' > $W/global-saved
mkdir -p $W/restore && cp $W/global-saved $W/restore/global
f Mconf-global-partial/global 'mailer                       /bin/mail
'
cap Mconf-global-partial qconf -Mconf files/Mconf-global-partial/global
cap Mconf-global-partial-show qconf -sconf global
qconf -Mconf $W/restore/global > /dev/null 2>&1
