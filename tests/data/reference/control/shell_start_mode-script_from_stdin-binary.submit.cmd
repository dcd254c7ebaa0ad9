$ qsub -terse -N shell_start_mode-script_from_stdin-binary -o out/shell_start_mode-script_from_stdin-binary.o -e out/shell_start_mode-script_from_stdin-binary.e -b y /bin/echo hello w o r l d
