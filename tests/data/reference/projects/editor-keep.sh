#!/bin/sh
n=$(ls /tmp/rqsw/ed | wc -l)
cp "$1" /tmp/rqsw/ed/recv$n
echo "$1" > /tmp/rqsw/ed/path$n
