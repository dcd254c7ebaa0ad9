sgeuser$ qrsub -a 11280449 -e 11280349
