#!/bin/sh
n=$(ls /tmp/rqsw/ed | grep -c recv)
cp "$1" /tmp/rqsw/ed/recv$n
echo "$1" > /tmp/rqsw/ed/path$n
sleep 1
cat /tmp/rqsw/next > "$1"
