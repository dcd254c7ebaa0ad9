sgeuser$ qrsub -a 202611290254 -d 60 -N full
