sgeuser$ qrsub -a 11280351 -e 11280451 -d 3600 -N aed
