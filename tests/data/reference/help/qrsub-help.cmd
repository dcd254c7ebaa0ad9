qrsub -help
