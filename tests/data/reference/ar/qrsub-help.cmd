sgeuser$ qrsub -help
