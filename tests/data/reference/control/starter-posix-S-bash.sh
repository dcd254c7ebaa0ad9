#!/bin/bash
echo "job: \$0=$0 argc=$# args=<$*> BASH_VERSION=${BASH_VERSION:-none} pid=$$"
echo "job: ps -o args of self: $(ps -o args= -p $$)"
echo "job: parent: $(ps -o args= -p $PPID)"
echo "job: /proc/self/cmdline of shell: $(tr '\0' ' ' < /proc/$$/cmdline)"
echo "job: stdin is: $(readlink /proc/$$/fd/0)"
