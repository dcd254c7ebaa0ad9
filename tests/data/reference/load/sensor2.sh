#!/bin/sh
# second load sensor (host-local configuration): reports only sensor_int from /tmp/loadw/sensor_int2
D=/tmp/loadw
host=$(hostname)
echo "$(date +%T) sensor2 start pid $$" >> $D/sensor.log
while read input; do
  echo "$(date +%T) sensor2 got '$input'" >> $D/sensor.log
  [ "$input" = quit ] && exit 0
  echo begin
  echo "$host:sensor_int:$(cat $D/sensor_int2)"
  echo end
done
