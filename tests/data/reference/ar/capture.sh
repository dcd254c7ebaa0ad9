#!/bin/bash
# Captures 8.1.9's advance-reservation behaviour on the oracle's "bench" cell
# (run as root: SGE_CELL=bench; /usr/lib/gridengine first on PATH).
# cap NAME [as=user|root] -- command...   writes NAME.cmd/.out/.err/.rc
cd /work/shared/tools/sge-oracle && SGE_CELL=bench . ./env.sh
export PATH=/usr/lib/gridengine:$PATH
OUT=${OUT:-/work/wt-ar/tests/data/reference/ar}
cap() {
    local name=$1 who=$2; shift 2
    echo "$who\$ $*" > "$OUT/$name.cmd"
    if [ "$who" = root ]; then
        "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"; echo $? > "$OUT/$name.rc"
    else
        SGE_ORACLE_USER=$who sge_as_user "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"; echo $? > "$OUT/$name.rc"
    fi
    echo "== $name (rc $(cat $OUT/$name.rc))"; cat "$OUT/$name.out"; cat "$OUT/$name.err" | sed 's/^/ERR: /'
}
