qresub -help
