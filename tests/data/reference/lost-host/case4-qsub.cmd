(as sgeuser) qsub -pe smp 2 -r y -b y -N lostPE -o /dev/null -e /dev/null /bin/sleep 300
