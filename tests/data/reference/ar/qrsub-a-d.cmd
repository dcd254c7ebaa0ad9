sgeuser$ qrsub -a 11280349 -d 3600
