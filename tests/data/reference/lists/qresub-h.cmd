qresub -h u 235
