#!/bin/sh
# load sensor used for the pygridengine reference captures
# values come from files in /tmp/loadw, behaviour from /tmp/loadw/mode
D=/tmp/loadw
host=$(hostname)
echo "$(date +%T) start pid $$ uid $(id -u) euid $(id -un) args '$*'" >> $D/sensor.log
while :; do
  if ! read input; then echo "$(date +%T) EOF on stdin" >> $D/sensor.log; exit 0; fi
  echo "$(date +%T) got '$input'" >> $D/sensor.log
  [ "$input" = quit ] && { echo "$(date +%T) quitting" >> $D/sensor.log; exit 0; }
  mode=$(cat $D/mode 2>/dev/null)
  case "$mode" in
    exit) echo "$(date +%T) exiting 3" >> $D/sensor.log; exit 3 ;;
    hang) echo "$(date +%T) hanging" >> $D/sensor.log; sleep 100000 ;;
  esac
  echo begin
  case "$mode" in
    garbage)
      echo "this is garbage"
      echo "$host:scratch_free"
      echo "$host:scratch_free:notanumber"
      echo "$host:sensor_int:$(cat $D/sensor_int)" ;;
    unknown)
      echo "$host:scratch_free:$(cat $D/scratch_free)"
      echo "$host:sensor_int:$(cat $D/sensor_int)"
      echo "$host:no_such_complex:42"
      echo "otherhost:sensor_int:7" ;;
    drop)
      echo "$host:scratch_free:$(cat $D/scratch_free)"
      echo end; continue ;;
    override)
      echo "$host:scratch_free:$(cat $D/scratch_free)"
      echo "$host:sensor_int:$(cat $D/sensor_int)"
      echo "$host:np_load_avg:$(cat $D/np_load_avg)"
      echo "$host:load_avg:$(cat $D/np_load_avg)"
      echo "$host:mem_free:1M" ;;
    *)
      echo "$host:scratch_free:$(cat $D/scratch_free)"
      echo "$host:sensor_int:$(cat $D/sensor_int)" ;;
  esac
  echo "global:global_val:$(cat $D/global_val)"
  echo end
done
