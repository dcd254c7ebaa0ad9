sgeuser$ qrsub -a 11280349
