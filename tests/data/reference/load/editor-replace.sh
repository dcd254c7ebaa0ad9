#!/bin/sh
n=$(ls /tmp/loadw/ed | grep -c recv)
cp "$1" /tmp/loadw/ed/recv$n
echo "$1" > /tmp/loadw/ed/path$n
sleep 1
cat /tmp/loadw/next > "$1"
