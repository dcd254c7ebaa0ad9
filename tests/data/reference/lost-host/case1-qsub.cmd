(as sgeuser) qsub -r y -b y -N lostY -o /dev/null -e /dev/null /bin/sleep 300
