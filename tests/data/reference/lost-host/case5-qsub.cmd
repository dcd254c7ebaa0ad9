(as sgeuser) qsub -r y -b y -N localRU -o /dev/null -e /dev/null /bin/sleep 300
