#!/bin/bash
# Extra captures of Grid Engine 8.1.9's calendar_conf(5) checks (qconf -Acal), beyond
# ../load/ (section 7). Run as root in the sge-oracle's bench cell (SGE_CELL=bench,
# /usr/lib/gridengine first on PATH), in this directory. NAME.input is the file given.
set -u
cd "$(dirname "$0")"
n=0
cal() {  # cal NAME 'year value' 'week value'
    local name=$1
    printf 'calendar_name    c%s\nyear             %s\nweek             %s\n' "$n" "$2" "$3" > "$name.input"
    printf '$ qconf -Acal %s.input\n' "$name" > "$name.cmd"
    qconf -Acal "$name.input" > "$name.out" 2> "$name.err"; echo $? > "$name.rc"
    if [ "$(cat $name.rc)" = 0 ]; then
        qconf -scal "c$n" > "$name.shown"; qconf -dcal "c$n" > /dev/null 2>&1
    fi
    n=$((n + 1))
}
cal year-range-time-state '1.1.2026-6.1.2026=8-18=suspended' NONE
cal year-two-entries '24.12.2026=off 31.12.2026=on' NONE
cal year-state-only 'off' NONE
cal year-time-only '8-18=off' NONE
cal year-on-only 'on' NONE
cal year-bad-state '24.12.2026=foo' NONE
cal year-bad-hour '24.12.2026=8-25=off' NONE
cal year-bad-minute '24.12.2026=8:60-9=off' NONE
cal year-bad-second '24.12.2026=8:00:60-9=off' NONE
cal year-feb30 '30.2.2026=off' NONE
cal year-1969 '1.1.1969=off' NONE
cal year-2038 '1.1.2038=off' NONE
cal year-garbage 'xyz' NONE
cal year-reverse-range '6.1.2026-1.1.2026=off' NONE
cal year-two-dots '24.12=off' NONE
cal year-trailing-dash '24.12.2026-=off' NONE
cal year-none-and-more 'NONE 24.12.2026=off' NONE
cal week-state-only NONE 'off'
cal week-suspended-only NONE 'suspended'
cal week-time-list NONE 'mon-fri=8-12,13-18=off'
cal week-two-entries NONE 'mon-fri=8-18=off sat=on'
cal week-bad-minute NONE 'mon=8:61-9=off'
cal week-single-hour NONE 'mon=8=off'
cal week-hour-24-30 NONE 'mon=24:30-24=off'
cal week-equal-hours NONE 'mon=8-8=off'
cal week-trailing-eq NONE 'mon='
cal week-double-eq NONE 'mon==off'
cal week-three-eq NONE 'mon=8-9=off=on'
cal week-weekday-list-range NONE 'mon,wed-fri=off'
cal week-bad-range NONE 'mon-funday=off'
cal week-comma-entries NONE 'mon=off,tue=on'
cal week-full-names NONE 'monday=off'
cal week-sun-sat NONE 'sun-sat=off'
cal week-day-then-bad-time NONE 'mon=ab-9=off'
cal both-bad 'xyz' 'xyz'
cal name-slash NONE NONE
sed -i 's/^calendar_name .*/calendar_name    a\/b/' name-slash.input
qconf -Acal name-slash.input > name-slash.out 2> name-slash.err; echo $? > name-slash.rc
for pair in NONE:NONE template:template ALL:ALL at:a@b colon:a:b; do
    bad=${pair#*:}; f="name-${pair%%:*}"
    printf 'calendar_name    %s\nyear             NONE\nweek             NONE\n' "$bad" > "$f.input"
    printf '$ qconf -Acal %s.input\n' "$f" > "$f.cmd"
    qconf -Acal "$f.input" > "$f.out" 2> "$f.err"; echo $? > "$f.rc"
    [ "$(cat $f.rc)" = 0 ] && qconf -dcal "$bad" > /dev/null 2>&1
done
# lists of names
printf 'calendar_name    ca\nyear             NONE\nweek             NONE\n' > ca.input
printf 'calendar_name    cb\nyear             NONE\nweek             NONE\n' > cb.input
qconf -Acal ca.input > /dev/null 2>&1; qconf -Acal cb.input > /dev/null 2>&1
for c in "scal-list:-scal ca,cb" "scall-two:-scall" "dcal-list:-dcal ca,nosuch,cb"; do
    name=${c%%:*}; args=${c#*:}
    printf '$ qconf %s\n' "$args" > "$name.cmd"
    qconf $args > "$name.out" 2> "$name.err"; echo $? > "$name.rc"
done
qconf -dcal ca > /dev/null 2>&1; qconf -dcal cb > /dev/null 2>&1

# ---- 2. the scanner's corners
n=100
cal year-trailing-comma '24.12.2026=off,x' NONE
cal year-month-name '24.dec.2026=off' NONE
cal year-month-full '24.December.2026=off' NONE
cal year-month-bad '24.foo.2026=off' NONE
cal year-month-two-letters '24.de.2026=off' NONE
cal year-day-zero '0.12.2026=off' NONE
cal year-overflow '99999999999.12.2026=off' NONE
cal year-at '@' NONE
cal year-uppercase-state '24.12.2026=OFF' NONE
cal year-sus '24.12.2026=sus' NONE
cal year-range-list-times '1.1.2026,3.1.2026-5.1.2026=8-9,10-11=on' NONE
cal week-mon-mon NONE 'mon-mon=off'
cal week-mon-dash-number NONE 'mon-8=off'
cal week-two-letters NONE 'mo=off'
cal week-uppercase-full NONE 'MONDAY=off'
cal week-too-long NONE 'mondays=off'
cal week-on-uppercase NONE 'mon=On'
cal week-of NONE 'mon=of'
cal week-at NONE '@'
cal week-time-then-weekday NONE '8-18=mon'
cal week-number-weekday NONE 'mon1=off'
cal week-time-seconds NONE 'mon=8:00:00-9:00:00=off'
cal week-time-leading-zero NONE 'mon=08:05-09=off'
cal week-multi-space NONE 'mon=off   tue=on'
cal week-trailing-space NONE 'mon=off '
cal week-none-lower NONE 'none'
cal year-none-lower 'none' NONE
