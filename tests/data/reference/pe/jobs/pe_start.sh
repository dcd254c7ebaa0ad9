#!/bin/sh
# start_proc_args of the capture PEs: records argv, env, uid and the hostfile
L=$HOME/pe29/out/pe_start.$JOB_ID
{ echo "uid=$(id -u) user=$(id -un) cwd=$(pwd) argc=$#"; i=0; for a in "$@"; do echo "argv[$i]=<$a>"; i=$((i+1)); done
  echo "--- env"; env | sort; echo "--- PE_HOSTFILE ($PE_HOSTFILE)"; cat "$PE_HOSTFILE"; echo "--- \$1 file"; cat "$1" 2>&1; } > $L 2>&1
echo "pe_start stdout line"; echo "pe_start stderr line" >&2
exit ${PE_START_EXIT:-0}
