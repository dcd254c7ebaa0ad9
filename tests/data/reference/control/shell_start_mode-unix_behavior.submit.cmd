$ qsub -terse -N shell_start_mode-unix_behavior -o out/shell_start_mode-unix_behavior.o -e out/shell_start_mode-unix_behavior.e showme.sh a1 b 2
