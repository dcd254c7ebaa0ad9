# Helpers used to take the captures in this directory from a real SGE 8.1.9 cell
# (/work/shared/tools/sge-oracle/setup.sh). Source as root:  . ./oracle-lib.sh
# cap NAME USER CMD...   runs CMD as USER (root: as is) with the real binaries first on PATH,
#                        writes NAME.cmd/.out/.err/.rc and appends NAME + UTC time to captures.log
. /work/shared/tools/sge-oracle/env.sh
# pygridengine's own q* (pyenv shims) must not shadow the real binaries
export PATH=/usr/lib/gridengine:/usr/bin:/usr/sbin:$PATH
R=${R:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
asu() {
    local user=$1; shift
    if [ "$user" = root ]; then "$@"; return; fi
    local home; home=$(getent passwd "$user" | cut -d: -f6)
    ( cd "$home" && runuser -u "$user" -- env SGE_ROOT="$SGE_ROOT" SGE_CELL="$SGE_CELL" \
        SGE_ARCH="$SGE_ARCH" SGE_QMASTER_PORT="$SGE_QMASTER_PORT" SGE_EXECD_PORT="$SGE_EXECD_PORT" \
        HOME="$home" PATH=/usr/lib/gridengine:/usr/bin:/bin USER="$user" LOGNAME="$user" "$@" )
}
cap() {
    local name=$1 user=$2; shift 2
    local t; t=$(date -u +%Y-%m-%dT%H:%M:%SZ); local e; e=$(date +%s)
    asu "$user" "$@" > "$R/$name.out" 2> "$R/$name.err"
    echo $? > "$R/$name.rc"
    printf '# as %s at %s (epoch %s)\n$ %s\n' "$user" "$t" "$e" "$*" > "$R/$name.cmd"
    printf '%s %s %s %s\n' "$t" "$e" "$name" "$user" >> "$R/captures.log"
    echo "== $name (rc $(cat "$R/$name.rc"))"; cat "$R/$name.out" "$R/$name.err"
}
# sub USER ARGS...: qsub -terse as USER, prints the job id, logs submit time
sub() {
    local user=$1; shift
    local id; id=$(asu "$user" qsub -terse "$@")
    printf '%s %s submit %s as %s: qsub %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(date +%s)" "${id%%.*}" "$user" "$*" >> "$R/captures.log"
    echo "${id%%.*}"
}
note() { printf '%s %s NOTE %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(date +%s)" "$*" >> "$R/captures.log"; }
