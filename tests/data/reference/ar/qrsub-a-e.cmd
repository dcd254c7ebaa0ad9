sgeuser$ qrsub -a 11280349 -e 11280449
