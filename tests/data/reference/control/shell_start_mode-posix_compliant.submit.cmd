$ qsub -terse -N shell_start_mode-posix_compliant -o out/shell_start_mode-posix_compliant.o -e out/shell_start_mode-posix_compliant.e showme.sh a1 b 2
