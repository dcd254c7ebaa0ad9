sgeuser$ qrsub -e 11280449
