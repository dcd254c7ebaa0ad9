$ qsub -terse -N shell_start_mode-script_from_stdin-S-bash -o out/shell_start_mode-script_from_stdin-S-bash.o -e out/shell_start_mode-script_from_stdin-S-bash.e -S /bin/bash showme.sh a1 b 2
