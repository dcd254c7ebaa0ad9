#!/bin/sh
n=$(ls /tmp/loadw/ed | wc -l)
cp "$1" /tmp/loadw/ed/recv$n
echo "$1" > /tmp/loadw/ed/path$n
