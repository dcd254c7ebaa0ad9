(as sgeuser) qsub -r y -b y -N reattach -o /dev/null -e /dev/null /bin/sleep 100
