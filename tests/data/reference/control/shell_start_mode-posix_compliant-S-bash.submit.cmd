$ qsub -terse -N shell_start_mode-posix_compliant-S-bash -o out/shell_start_mode-posix_compliant-S-bash.o -e out/shell_start_mode-posix_compliant-S-bash.e -S /bin/bash showme.sh a1 b 2
