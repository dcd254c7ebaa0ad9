qsub -verify -N verified -b y /bin/true
