(as sgeuser) qsub -r n -b y -N lostN -o /dev/null -e /dev/null /bin/sleep 300
