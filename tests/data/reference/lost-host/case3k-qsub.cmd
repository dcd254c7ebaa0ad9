(as sgeuser) qsub -r y -b y -N lostK -o /dev/null -e /dev/null /bin/sleep 300
