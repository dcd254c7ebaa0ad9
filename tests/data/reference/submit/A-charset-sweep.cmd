# qsub -h -b y -A "a<char>b" /bin/true for every non-alphanumeric printable ASCII char plus TAB, LF, CR (as sgeuser)
