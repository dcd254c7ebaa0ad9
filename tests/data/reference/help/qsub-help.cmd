qsub -help
