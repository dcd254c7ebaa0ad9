$ qsub -terse -N shell_start_mode-script_from_stdin -o out/shell_start_mode-script_from_stdin.o -e out/shell_start_mode-script_from_stdin.e showme.sh a1 b 2
